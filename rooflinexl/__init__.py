"""rooflinexl: roofline planning for spreadsheets."""
from rooflinexl._version import __version__
