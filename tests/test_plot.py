"""rooflinexl.plot and the plot command: roofline charts."""
from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from rooflinexl.batch import sweep
from rooflinexl.cli import main
from rooflinexl.errors import KeywordError, UnknownChipError
from rooflinexl.plot import plot_roofline, points_from_results

PNG = b"\x89PNG\r\n\x1a\n"


def test_plot_roofline_writes_png_with_points(tmp_path):
    points = {"intensity": [16.0, 600.0], "flops_per_s": [5.4e13, 9.89e14],
              "label": ["B=16", "B=600"], "chip": ["H100", "h100-sxm"]}
    out = plot_roofline(["H100", "TPU v5e"], ["hbm", "nvlink"], points, tmp_path / "r.png")
    assert out == tmp_path / "r.png"
    data = out.read_bytes()
    assert data[:8] == PNG and len(data) > 10_000


def test_plot_roofline_svg_and_skips_missing_tier(tmp_path):
    # H100 has no vmem_bw in the packaged table: that roof is left out, not an error
    out = plot_roofline(["H100"], ["hbm", "vmem"], None, tmp_path / "r.svg")
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "H100 has no vmem_bw" in text


def test_plot_roofline_bad_names(tmp_path):
    with pytest.raises(UnknownChipError):
        plot_roofline(["B900"], ["hbm"], None, tmp_path / "x.png")
    with pytest.raises(KeywordError):
        plot_roofline(["H100"], ["hbmx"], None, tmp_path / "x.png")


def test_points_from_results_label_varying_arguments():
    res = sweep(chip=["H100", "TPU v5e", "B900"], B=[64, 4096], D=8192, F=8192)
    pts = points_from_results(res)
    assert len(pts) == 4  # the B900 rows have no result
    # chip is shown by colour; the label names what else varies
    assert pts["label"].tolist() == ["B=64", "B=4096", "B=64", "B=4096"]
    assert pts["chip"].tolist() == ["H100", "H100", "TPU v5e", "TPU v5e"]
    # a memory-bound matmul sits on the HBM roof: flops_per_s = intensity * hbm_bw
    assert pts.loc[0, "flops_per_s"] == pytest.approx(pts.loc[0, "intensity"] * 3.35e12)


def test_cli_plot_results_and_roofs_only(tmp_path):
    src = tmp_path / "scen.csv"
    pd.DataFrame({"chip": ["H100", "TPU v5p"], "B": [64, 4096], "D": 8192,
                  "F": 8192}).to_csv(src, index=False)
    res = CliRunner().invoke(main, ["plot", str(src), "-o", str(tmp_path / "a.png"),
                                    "--tier", "hbm", "--tier", "ici"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "a.png").read_bytes()[:8] == PNG
    res = CliRunner().invoke(main, ["plot", "--chip", "H100", "--chip", "TPU v5p", "--tier",
                                    "dcn", "-o", str(tmp_path / "b.pdf")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "b.pdf").read_bytes()[:5] == b"%PDF-"
    res = CliRunner().invoke(main, ["plot", "--chip", "B900", "-o", str(tmp_path / "c.png")])
    assert res.exit_code == 1 and "unknown chip 'B900'" in res.output
    res = CliRunner().invoke(main, ["plot", "-o", str(tmp_path / "d.png")])
    assert res.exit_code == 2 and "no chips to draw" in res.output
