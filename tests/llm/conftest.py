from tests.validate.tiny_omop import tiny  # noqa: F401  (session fixture)
