"""``clinbridge vocab``: look up and map vocabulary concepts."""

from clinbridge.cli._lazy import lazy_group

vocab_group = lazy_group(
    "vocab",
    "Look up concepts in a loaded vocabulary.",
    {
        "lookup": "clinbridge.cli.omop:vocab_lookup",
        "descendants": "clinbridge.cli.omop:vocab_descendants",
        "map": "clinbridge.cli.omop:vocab_map",
    },
)
