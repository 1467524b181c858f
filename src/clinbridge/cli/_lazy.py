"""A click group whose subcommands are imported only when used."""

from __future__ import annotations

import importlib

import click

__all__ = ["lazy_group"]


def lazy_group(name: str, help_text: str, commands: dict[str, str]) -> click.Group:
    """A group whose subcommands are ``module:attribute`` strings."""

    class _Group(click.Group):
        def list_commands(self, ctx: click.Context) -> list[str]:
            return sorted(commands)

        def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
            target = commands.get(cmd_name)
            if target is None:
                return None
            module, _, attr = target.partition(":")
            try:
                mod = importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
                return None
            cmd: click.Command = getattr(mod, attr)
            return cmd

    return _Group(name=name, help=help_text)
