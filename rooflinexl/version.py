"""The package version: read by pyproject (setuptools attr) and the release workflow."""
VERSION = "0.1.0"
