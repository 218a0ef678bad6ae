"""The LibreOffice Calc add-in without LibreOffice: generated from udfs, type library, rules.

The component itself (``rooflinexl/libreoffice/component.py``) runs inside
LibreOffice's Python; here it is loaded with stand-ins for the ``uno``
modules, so its argument and result rules are checked in milliseconds. The
same rules in the real application: tests/test_libreoffice_calc.py.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
import math
import os
import struct
import sys
import types
from pathlib import Path

import pytest

from rooflinexl import udfs
from rooflinexl.libreoffice import addin
from rooflinexl.libreoffice.addin import AddinSetupError


# ------------------------------------------------------------------ catalogue
def test_catalogue_is_udfs_functions_with_their_signatures_and_docs():
    cat = addin.catalogue()
    assert [f.name for f in cat] == list(udfs.FUNCTIONS)
    for f in cat:
        params = inspect.signature(udfs.FUNCTIONS[f.name]).parameters.values()
        assert [(a.name, a.optional) for a in f.arguments] == [
            (p.name, p.default is not inspect.Parameter.empty) for p in params]
        assert f.description and len(f.description) <= 255, f.name
        for a in f.arguments:  # the Function Wizard shows each argument's doc
            assert a.doc and len(a.doc) <= 255, f"{f.name}({a.name}) has no doc"


def test_crit_batch_in_the_catalogue_as_written_in_udfs():
    f = {f.name: f for f in addin.catalogue()}["CRIT_BATCH"]
    assert [a.name for a in f.arguments] == ["chips", "chip", "D", "F", "dtype",
                                             "weight_dtype", "tier"]
    assert [a.optional for a in f.arguments] == [False, False, True, True, True, True, True]
    assert f.arguments[0].doc == udfs.DOCS["chips"]
    assert f.description.startswith("Critical token batch")


def test_idl_declares_required_arguments_as_blocks_and_optional_ones_as_any():
    idl = addin.idl_text()
    line = next(x for x in idl.splitlines() if " CRIT_BATCH(" in x)
    block = "sequence< sequence< any > >"
    assert line.strip() == (
        f"{block} CRIT_BATCH([in] {block} chips, [in] {block} chip, [in] any D, [in] any F, "
        "[in] any dtype, [in] any weightDtype, [in] any tier);")
    assert sum(f" {name}(" in idl for name in udfs.FUNCTIONS) == len(udfs.FUNCTIONS)


def test_committed_type_library_names_every_function():
    data = addin.RDB.read_bytes()
    assert data.startswith(b"UNOIDL")
    missing = [n for n in udfs.FUNCTIONS if n.encode() not in data]
    assert not missing, f"{missing} missing from {addin.RDB.name}: run `rooflinexl build`"


def test_committed_type_library_matches_the_idl_generated_from_udfs(tmp_path):
    if addin.unoidl_tool("unoidl-write") is None or addin.unoidl_tool("unoidl-read") is None:
        pytest.skip("no unoidl-write/unoidl-read (LibreOffice SDK, libreoffice-dev) here")
    fresh = tmp_path / "fresh.rdb"
    assert addin.build_rdb(fresh) == "written"
    assert addin.same_types(addin.RDB, fresh), (
        f"{addin.RDB.name} differs from the IDL of rooflinexl.udfs: run `rooflinexl build`")
    assert addin.build_rdb(fresh) == "unchanged"
    fresh.write_bytes(b"damaged")
    assert addin.build_rdb(fresh) == "written" and addin.same_types(addin.RDB, fresh)


def test_build_keeps_the_committed_library_without_the_sdk(monkeypatch, tmp_path):
    monkeypatch.setattr(addin, "unoidl_tool", lambda name="unoidl-write": None)
    dst = tmp_path / "lib.rdb"
    dst.write_bytes(b"committed")
    assert addin.build_rdb(dst) == "kept"
    assert dst.read_bytes() == b"committed"


# -------------------------------------------------------- Python, install
def test_another_python_minor_version_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(addin, "addin_python", lambda: (3, 9))
    with pytest.raises(AddinSetupError) as exc:
        addin.check_python()
    ours = "{}.{}".format(*sys.version_info[:2])
    assert "Python 3.9" in str(exc.value) and f"Python {ours}" in str(exc.value)


def test_no_python_bridge_names_python3_uno(monkeypatch, tmp_path):
    monkeypatch.setattr(addin, "program_dir", lambda: tmp_path)
    with pytest.raises(AddinSetupError, match="python3-uno"):
        addin.addin_python()


def test_python_version_read_from_the_library_the_bridge_links(monkeypatch, tmp_path):
    (tmp_path / "libpyuno.so").write_bytes(b"\x7fELF...\0libpython3.12.so.1.0\0...")
    monkeypatch.setattr(addin, "program_dir", lambda: tmp_path)
    assert addin.addin_python() == (3, 12)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX users")
def test_install_as_root_without_shared_says_what_to_do(monkeypatch):
    monkeypatch.setattr(addin, "soffice_path", lambda: "/usr/bin/soffice")
    monkeypatch.setattr(addin, "check_python", lambda: sys.version_info[:2])
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(AddinSetupError, match="--shared"):
        addin.install()


def test_extension_holds_component_types_registration_and_site(tmp_path):
    import zipfile

    oxt = addin.build_oxt(tmp_path / "r.oxt")
    with zipfile.ZipFile(oxt) as zf:
        names = set(zf.namelist())
        manifest = zf.read("META-INF/manifest.xml").decode()
        site = json.loads(zf.read("rooflinexl-site.json"))
        components = zf.read("rooflinexl.components").decode()
    assert {"component.py", "rooflinexl.rdb", "rooflinexl.components", "description.xml",
            "META-INF/manifest.xml", "rooflinexl-site.json"} <= names
    assert "uno-typelibrary" in manifest and "uno-components" in manifest
    assert 'uri="./component.py"' in components and "com.sun.star.sheet.AddIn" in components
    assert site["python"] == "{}.{}".format(*sys.version_info[:2])
    import numpy

    import rooflinexl
    for mod in (rooflinexl, numpy):
        assert str(Path(mod.__file__).resolve().parent.parent) in site["paths"]


# ------------------------------------------------------------ the component
def _stub(name: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    return mod


@pytest.fixture
def component(tmp_path, monkeypatch):
    """component.py loaded with stand-ins for the uno modules, from a staged folder."""
    class Iface:
        pass

    class Locale:
        def __init__(self, *a):
            self.a = a

    class LocalizedName:
        def __init__(self, locale, name):
            self.Locale, self.Name = locale, name

    class Helper:
        def addImplementation(self, *a):
            self.impl = a

    stubs = {
        "unohelper": _stub("unohelper", Base=type("Base", (), {}), ImplementationHelper=Helper),
        "com": _stub("com"), "com.sun": _stub("com.sun"), "com.sun.star": _stub("com.sun.star"),
        "com.sun.star.lang": _stub("com.sun.star.lang", Locale=Locale,
                                   XServiceInfo=type("XServiceInfo", (Iface,), {}),
                                   XServiceName=type("XServiceName", (Iface,), {})),
        "com.sun.star.sheet": _stub("com.sun.star.sheet", LocalizedName=LocalizedName,
                                    XAddIn=type("XAddIn", (Iface,), {}),
                                    XCompatibilityNames=type("XCN", (Iface,), {})),
        "org": _stub("org"),
        "org.rooflinexl": _stub("org.rooflinexl",
                                XRooflineFunctions=type("XRooflineFunctions", (Iface,), {})),
    }
    for name, mod in stubs.items():
        monkeypatch.setitem(sys.modules, name, mod)
    folder = addin.stage(tmp_path / "addin", log=tmp_path / "addin.log")
    spec = importlib.util.spec_from_file_location("rooflinexl_lo_component",
                                                  folder / "component.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.log_file = tmp_path / "addin.log"
    return mod


def _error_code(x: float) -> int:
    assert math.isnan(x)
    return struct.unpack("<Q", struct.pack("<d", x))[0] & 0xFFFFFFFF


CHIPS = (("chip", "bf16_flops", "hbm_bw"), ("X1", 1e15, 2e12))  # I = 500 FLOP/B


def test_results_are_blocks_and_errors_carry_calcs_error_codes(component):
    # B* = 1 / (1/I - 1/D - 1/F) with I = 1e15 / 2e12 = 500, D = F = 1000: 1/(0.002-0.002)
    # is unreachable (#NUM!); D = F = 2000: 1 / (0.002 - 0.001) = 1000
    assert component.call("CRIT_BATCH", (CHIPS, (("X1",),), 2000.0, 2000.0, None, None,
                                         None)) == ((1000.0,),)
    [[num]] = component.call("CRIT_BATCH", (CHIPS, (("X1",),), 1000.0, 1000.0, None, None,
                                            None))
    assert _error_code(num) == 503  # FormulaError::IllegalFPOperation, Calc's #NUM!
    [[na, ok]] = component.call("CRIT_BATCH", (CHIPS, (("X9", "X1"),), 2000.0, 2000.0, None,
                                               None, None))
    assert _error_code(na) == 0x7FFF and ok == 1000.0  # #N/A for the unknown chip only
    # text results stay text
    assert component.call("CHIP_SPEC", (CHIPS, (("X1",),), (("chip",),))) == (("X1",),)


def test_blank_optional_arguments_mean_the_default(component):
    # Calc passes an omitted argument as None and an empty cell as 0.0: both are the default
    # (D and F blank: B* = I = 500)
    for blank in (None, 0.0):
        assert component.call("CRIT_BATCH", (CHIPS, (("X1",),), blank, blank, blank, blank,
                                             blank)) == ((500.0,),)
    # a range keeps its empty cells as None: D = (blank, 2000) -> (500, 1/(0.002-0.0005))
    [[a], [b]] = component.call("CRIT_BATCH", (CHIPS, (("X1",),), ((None,), (2000.0,)), None,
                                               None, None, None))
    assert a == 500.0 and b == pytest.approx(1 / (0.002 - 0.0005), rel=1e-12)


def test_a_bad_call_is_value_error_with_its_message_in_the_log(component):
    [[v]] = component.call("CRIT_BATCH", (CHIPS, (("X1",),), None, None, "bf17", None, None))
    assert _error_code(v) == 519  # FormulaError::NoValue, Calc's #VALUE!
    log = component.log_file.read_text()
    assert "CRIT_BATCH: #VALUE! dtype 'bf17' is not one of" in log


def test_function_wizard_texts_come_from_udfs(component):
    impl = component.RooflineAddIn()
    assert impl.getDisplayFunctionName("CRIT_BATCH") == "CRIT_BATCH"
    assert impl.getProgrammaticFuntionName("crit_batch") == "CRIT_BATCH"
    assert impl.getFunctionDescription("CRIT_BATCH").startswith("Critical token batch")
    assert impl.getDisplayArgumentName("CRIT_BATCH", 2) == "D"
    assert impl.getArgumentDescription("CRIT_BATCH", 2) == udfs.DOCS["D"]
    assert impl.getArgumentDescription("CRIT_BATCH", 0) == udfs.DOCS["chips"]
    [name] = impl.getCompatibilityNames("CRIT_BATCH")
    assert name.Name == "CRIT_BATCH" and name.Locale.a == ("en", "US", "")
    assert impl.supportsService("com.sun.star.sheet.AddIn")
    assert component.g_ImplementationHelper.impl[1] == addin.IMPLEMENTATION


def test_another_python_in_libreoffice_is_a_clear_error(component, tmp_path):
    cfg_path = tmp_path / "addin" / "rooflinexl-site.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["python"] = "2.7"
    cfg_path.write_text(json.dumps(cfg))
    component._STATE.clear()
    [[v]] = component.call("VERSION", ())
    assert _error_code(v) == 519
    assert "rooflinexl was installed from Python 2.7" in component.log_file.read_text()


def test_an_unusable_chip_table_is_a_bad_call_and_a_good_one_is_parsed_once(component):
    bad = (("chip", "bf16_flops"), ("X1", 1e15))  # no hbm_bw column
    [[v]] = component.call("CRIT_BATCH", (bad, (("X1",),), None, None, None, None, None))
    assert _error_code(v) == 519
    assert "CRIT_BATCH: #VALUE! chips:" in component.log_file.read_text()
    component.call("CRIT_BATCH", (CHIPS, (("X1",),), None, None, None, None, None))
    parsed = component._STATE["tables"][CHIPS]
    component.call("CRIT_INTENSITY", (CHIPS, (("X1",),), None, None))
    assert component._STATE["tables"][CHIPS] is parsed


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX users")
def test_cli_install_as_root_fails_with_one_line(monkeypatch):
    from click.testing import CliRunner

    from rooflinexl.cli import main

    monkeypatch.setattr(addin, "soffice_path", lambda: "/usr/bin/soffice")
    monkeypatch.setattr(addin, "check_python", lambda: sys.version_info[:2])
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    result = CliRunner().invoke(main, ["libreoffice", "install"])
    assert result.exit_code == 2
    assert "pass --shared" in result.output and "Traceback" not in result.output


def test_cli_build_keeps_the_committed_type_library_without_the_sdk(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from rooflinexl.cli import main

    monkeypatch.setattr(addin, "unoidl_tool", lambda name="unoidl-write": None)
    lib = tmp_path / "rooflinexl" / "libreoffice" / "rooflinexl.rdb"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"committed")
    result = CliRunner().invoke(main, ["build", "--root", str(tmp_path), "--no-recalc",
                                       "rooflinexl.rdb"])
    assert result.exit_code == 0, result.output
    assert "kept the committed file: no unoidl-write" in result.output
    assert lib.read_bytes() == b"committed"


#: optional arguments where 0 is a valid value, so that in LibreOffice a typed 0 (read as
#: blank) gives the default instead: listed in docs/excel.md, "LibreOffice Calc"
ZERO_IS_VALID = {("KV_CACHE_BYTES", "batch")}


def test_zero_in_an_optional_argument_is_outside_its_domain_except_where_documented():
    """The add-in reads a single 0 in an optional argument as blank (Calc's empty cell).

    That changes no valid input wherever 0 is outside the argument's domain: there
    rooflinexl gives an error for 0 (or a bad call). Each exception is in the docs.
    """
    from libreoffice import SAMPLES

    from rooflinexl.chips import load_chips

    def value(name, text):
        if name == "chips":
            return load_chips().to_rows()
        if isinstance(text, str) and text.startswith('"'):
            return text.strip('"')
        return float(text)

    valid_zero, checked = set(), 0
    for name, fn in udfs.FUNCTIONS.items():
        params = list(inspect.signature(fn).parameters.values())
        if any(p.name not in SAMPLES for p in params):
            continue
        base = {p.name: value(p.name, SAMPLES[p.name]) for p in params}
        for p in params:
            if p.default is inspect.Parameter.empty:
                continue
            checked += 1
            try:
                out = fn(**dict(base, **{p.name: 0.0}))
            except udfs.RooflineInputError:
                continue
            if not (isinstance(out, str) and out.startswith("#")):
                valid_zero.add((name, p.name))
    assert checked >= 25
    assert valid_zero == ZERO_IS_VALID, (
        "0 is a valid value of these optional arguments, which LibreOffice reads as blank: "
        "say so in docs/excel.md (LibreOffice Calc, Blank arguments) and in ZERO_IS_VALID")


def test_a_function_calc_cannot_call_is_refused_at_build(monkeypatch):
    def varargs(chips, *rest):
        """Not for Calc."""

    monkeypatch.setitem(udfs.FUNCTIONS, "VARARGS", varargs)
    with pytest.raises(AddinSetupError, match="VARARGS: .*not rest"):
        addin.catalogue()
