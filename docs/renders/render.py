"""Render every sheet of the shipped workbooks to PNG as LibreOffice shows them to a new user.

    python docs/renders/render.py [--dpi 110] [--outdir docs/renders] [BOOK.xlsx ...]

A new user's LibreOffice does not recalculate an xlsx on load (Tools > Options >
Calc > Formula: "Excel 2007 and newer: Never recalculate"), so the pictures show
the values ``rooflinexl recalc`` stamped into the file. Each visible sheet is
printed alone (the others hidden in a temporary copy) to PDF with a fresh
profile, and the first page of each goes through ``pdftoppm``:
``<book>-<n>-<sheet>.png``.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BOOKS = ["workbooks/Roofline.xlsx", "templates/capacity_plan.xlsx",
                 "templates/training_plan.xlsx", "templates/cost_comparison.xlsx",
                 "templates/matmul_sweep.xlsx"]
SHEET_RE = re.compile(rb"<sheet\b[^>]*/>")


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()


def sheet_copies(book: Path, tmp: Path) -> list[tuple[Path, str]]:
    """One copy of ``book`` per visible sheet with every other sheet hidden."""
    with zipfile.ZipFile(book) as z:
        items = [(i, z.read(i)) for i in z.infolist()]
    wbxml = next(d for i, d in items if i.filename == "xl/workbook.xml")
    tags = SHEET_RE.findall(wbxml)
    names = [re.search(rb'name="([^"]*)"', t).group(1).decode() for t in tags]
    visible = [k for k, t in enumerate(tags)
               if re.search(rb'state="(hidden|veryHidden)"', t) is None]
    out = []
    for n, k in enumerate(visible, start=1):
        xml = wbxml
        for j, t in enumerate(tags):
            new = re.sub(rb'\sstate="[^"]*"', b"", t)
            if j != k:
                new = new.replace(b"<sheet ", b'<sheet state="hidden" ', 1)
            xml = xml.replace(t, new, 1)
        xml = re.sub(rb'activeTab="\d+"', b"", xml)
        xml = xml.replace(b"<workbookView", f'<workbookView activeTab="{k}"'.encode(), 1)
        dst = tmp / f"{book.stem}-{n}-{_slug(names[k])}.xlsx"
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
            for info, data in items:
                z.writestr(info, xml if info.filename == "xl/workbook.xml" else data)
        out.append((dst, names[k]))
    return out


def render(books: list[Path], outdir: Path, dpi: int = 110) -> list[Path]:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice or not shutil.which("pdftoppm"):
        sys.exit("needs soffice (LibreOffice) and pdftoppm (poppler-utils)")
    outdir.mkdir(parents=True, exist_ok=True)
    pngs = []
    with tempfile.TemporaryDirectory(prefix="rooflinexl-render-") as t:
        tmp = Path(t)
        copies = [c for b in books for c in sheet_copies(b, tmp)]
        if not copies:
            sys.exit("no visible sheets found")
        env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")
        subprocess.run([soffice, "--headless", "--norestore", "--nologo", "--nolockcheck",
                        f"-env:UserInstallation={(tmp / 'profile').as_uri()}",
                        "--convert-to", "pdf", "--outdir", str(tmp / "pdf"),
                        *[str(c) for c, _ in copies]],
                       check=True, capture_output=True, env=env, timeout=600)
        for copy, _ in copies:
            pdf = tmp / "pdf" / (copy.stem + ".pdf")
            png = outdir / copy.stem
            subprocess.run(["pdftoppm", "-png", "-r", str(dpi), "-f", "1", "-l", "1",
                            "-singlefile", str(pdf), str(png)], check=True)
            out = png.with_suffix(".png")
            _shrink(out)
            if any(out.read_bytes() == p.read_bytes() for p in pngs):
                out.unlink()  # the same sheet again (the Chips sheet of every book)
            else:
                pngs.append(out)
    return pngs


def _shrink(png: Path, margin: int = 12) -> None:
    """Crop the blank page around the content and store with a 256-colour palette."""
    try:
        from PIL import Image, ImageChops
    except ImportError:  # keep the full page
        return
    im = Image.open(png).convert("RGB")
    box = ImageChops.difference(im, Image.new("RGB", im.size, "white")).getbbox()
    if box:
        box = (max(box[0] - margin, 0), max(box[1] - margin, 0),
               min(box[2] + margin, im.width), min(box[3] + margin, im.height))
        im = im.crop(box)
    im.quantize(colors=256).save(png, optimize=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("books", nargs="*", type=Path)
    ap.add_argument("--outdir", type=Path, default=ROOT / "docs" / "renders")
    ap.add_argument("--dpi", type=int, default=110)
    a = ap.parse_args(argv)
    books = a.books or [ROOT / b for b in DEFAULT_BOOKS]
    missing = [b for b in books if not b.is_file()]
    if missing:
        sys.exit(f"no such workbook: {', '.join(map(str, missing))}")
    for p in render(books, a.outdir, a.dpi):
        print(p, p.stat().st_size)


if __name__ == "__main__":
    main()
