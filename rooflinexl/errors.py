"""Exceptions and Excel error values shared by every layer.

Python callers get precise exceptions; spreadsheet hosts get the exact Excel
error strings of DESIGN.md section 4. An :class:`ExcelError` is a ``str`` (so
xlwings Server/Lite turn it into a real error value and JSON keeps it as text)
that also carries the human reason, which the headless engine reports.
"""
from __future__ import annotations

#: The Excel error values a rooflinexl function may return.
EXCEL_ERRORS = ("#N/A", "#NUM!", "#VALUE!", "#DIV/0!", "#NAME?", "#REF!", "#NULL!")


class ExcelError(str):
    """An Excel error value (``"#N/A"``, ``"#NUM!"`` ...) with its reason.

    Compares and serialises as the plain error string; ``reason`` says why.
    """

    reason: str

    def __new__(cls, code: str, reason: str = "") -> ExcelError:
        if code not in EXCEL_ERRORS:
            raise ValueError(f"{code!r} is not an Excel error value")
        self = super().__new__(cls, code)
        self.reason = reason
        return self

    def __reduce__(self):
        return (ExcelError, (str(self), self.reason))


class RooflineError(Exception):
    """Base class of every exception rooflinexl raises on purpose."""


class WriteError(RooflineError, OSError):
    """An output file could not be written (one line: the path and the reason).

    Raised by :func:`rooflinexl.ooxml.atomic_write`; the previous file, if
    any, is unchanged.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "cannot write"


def failure_message(exc: BaseException, path, doing: str = "recalculate") -> str:
    """One line for a failure while working on ``path``: what, where and why.

    Parameters
    ----------
    exc : BaseException
        What was raised.
    path : str or os.PathLike
        The file being worked on.
    doing : str
        The verb for the message (``"recalculate"``, ``"read"`` ...).

    Returns
    -------
    str
        :class:`RooflineError`: its own message. :class:`MemoryError`: says the
        memory ran out. :class:`OSError`: the file it names (else ``path``) and
        the operating system's reason. Anything else: the exception, marked as
        unexpected, with where to report it.

    Examples
    --------
    >>> failure_message(PermissionError(13, "Permission denied", "/x/b.xlsx"), "/x/b.xlsx")
    '/x/b.xlsx: cannot recalculate: Permission denied'
    >>> failure_message(MemoryError(), "b.xlsx")[:45]
    'b.xlsx: out of memory while trying to recalcu'
    """
    if isinstance(exc, RooflineError):
        text = str(exc)
    elif isinstance(exc, MemoryError):
        text = (f"{path}: out of memory while trying to {doing} it: free memory, or run it on "
                "a machine with more; the workbook needs more than is available")
    elif isinstance(exc, OSError):
        where = exc.filename or path
        text = f"{where}: cannot {doing}: {exc.strerror or exc or type(exc).__name__}"
    else:
        text = (f"cannot {doing} {path}: {type(exc).__name__}: {exc} (unexpected: if saving "
                "the workbook again from Excel does not help, report it with this line, "
                "see SECURITY.md)")
    return " ".join(text.split())


class ChipTableError(RooflineError, ValueError):
    """The chip-spec table is unusable (missing column, duplicate name, bad number)."""


class UnitError(RooflineError, ValueError):
    """A header unit that is unknown or of the wrong dimension (``hbm_bw [furlongs]``)."""


class KeywordError(RooflineError, ValueError):
    """An unknown keyword value (dtype, tier, result, kind, shard, field)."""


class UnknownChipError(RooflineError, LookupError):
    """A chip name that matches no name or alias of the table (Excel ``#N/A``)."""

    excel = "#N/A"


class MissingSpecError(RooflineError, LookupError):
    """The chip row has no value in a field the formula needs (Excel ``#N/A``)."""

    excel = "#N/A"


class DomainError(RooflineError, ValueError):
    """An input outside the formula's domain or an unreachable threshold (Excel ``#NUM!``)."""

    excel = "#NUM!"


class ZeroDivisionInputError(RooflineError, ZeroDivisionError):
    """A zero denominator (Excel ``#DIV/0!``)."""

    excel = "#DIV/0!"


class NotANumberError(RooflineError, TypeError):
    """Text, a boolean or an error value where a number belongs (Excel ``#VALUE!``)."""

    excel = "#VALUE!"


class ModelTableError(RooflineError, ValueError):
    """The model table is unusable (missing column, duplicate name, bad number or unit)."""


class UnknownModelError(RooflineError, LookupError):
    """A model name that matches no name or alias of the model table (Excel ``#N/A``)."""

    excel = "#N/A"


#: Element-level exception for each Excel error value.
EXCEPTION_FOR = {
    "#N/A": UnknownChipError,
    "#NUM!": DomainError,
    "#DIV/0!": ZeroDivisionInputError,
    "#VALUE!": NotANumberError,
}
