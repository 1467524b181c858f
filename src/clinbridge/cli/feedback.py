"""``clinbridge feedback``: review and approve answers for the example bank."""

from clinbridge.cli._lazy import lazy_group

feedback_group = lazy_group(
    "feedback",
    "Approve or edit answers for the example bank.",
    {
        "approve": "clinbridge.cli.understand:feedback_approve",
        "edit": "clinbridge.cli.understand:feedback_edit",
    },
)
