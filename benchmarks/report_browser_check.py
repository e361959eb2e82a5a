"""Render ``mlparse report --format html`` in headless Chromium and check the page.

A benchmark-level check (not part of the CI suite; it needs a browser).  It

1. builds a realistic ``runs/`` folder in a temporary directory, written the way
   the trainer writes it (:class:`mlparse.run_dir.RunDir`, the
   :class:`~mlparse.results.RunResults` / :class:`~mlparse.results.LogEntry`
   schema): complete runs on ptb-sample (English), the free treebanks
   (Icelandic, Japanese) and SPMRL-like data (Hebrew with two systems and an older
   rerun, Polish), dependency runs on two UD treebanks (UAS/LAS), each with a
   ``log.jsonl`` dev curve; one running run (partial log), one failed run (error
   message) and one broken ``results.json``;
2. runs ``mlparse report <runs> --format html --out <tmp>/report.html`` as a
   subprocess and checks the page statically (self-contained: nothing external);
3. when ``/usr/bin/chromium`` (or ``--chromium``) exists, loads the page
   headless, twice:

   * ``--dump-dom`` on a *copy* of the page with a small probe script appended,
     which reports what the browser saw after load: tables, ``<img>`` elements
     with ``data:`` URIs and whether each decoded (``naturalWidth > 0``), resource
     fetches (``performance.getEntriesByType('resource')``: must be none), the
     page height and whether anything is wider than the viewport;
   * ``--screenshot`` of the original page at 1400 px wide and the page's full
     height, saved to ``--screenshot`` (default ``reports/report_check.png``;
     ``reports/`` is git-ignored).

It prints each check and exits 1 when one fails, 0 otherwise.  Without Chromium
it says how to install it (``apt-get install -y chromium``) and exits 0 after the
static checks.

Usage: python3 benchmarks/report_browser_check.py [--screenshot PATH] [--keep DIR] [--chromium PATH]
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from mlparse.results import COMPLETE, FAILED, RUNNING, LogEntry, RunResults, SplitScores
from mlparse.tasks import dev_metric
from mlparse.run_dir import RunDir

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CHROMIUM = Path("/usr/bin/chromium")
#: The flags this machine needs (see the machine notes): no sandbox as root, no GPU, no background networking.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars")
WIDTH = 1400
MIN_HEIGHT = 3000


# ------------------------------------------------------------------------------------- runs folder

@dataclass(frozen=True)
class RunSpec:
    recipe: str
    run_id: str
    dataset: str
    language: str
    system: str
    dev_score: float  # the dev curve's asymptote (the best evaluation lands near it): F1, or LAS for dependency
    test_score: float
    steps: int = 12_000
    eval_every: int = 500
    status: str = COMPLETE
    error: Optional[str] = None
    model: str = "span"
    finished_at: str = "2026-11-20T18:00:00+00:00"
    sentences: Tuple[int, int] = (1700, 2416)  # dev, test
    speed: float = 410.0
    hardware: Tuple[Tuple[str, object], ...] = (("device", "cuda"), ("gpu", "NVIDIA A100-SXM4-40GB"),
                                                 ("gpu_count", 1), ("cpu_count", 16))
    task: str = "constituency"


RUNS: Tuple[RunSpec, ...] = (
    RunSpec("ptb-sample", "3f9c2a1b7d04", "ptb-sample", "english", "mlparse span (CharLSTM)", 89.41, 88.97,
            steps=6000, eval_every=250, sentences=(196, 199), speed=520.3, hardware=(("device", "cpu"),
                                                                                  ("cpu_count", 2))),
    RunSpec("free-icelandic", "a81d0c5e22f3", "free", "icelandic", "mlparse span (CharLSTM)", 84.12, 83.55,
            sentences=(4127, 4132), speed=388.0),
    RunSpec("free-japanese", "0b7e4f19c6aa", "free", "japanese", "mlparse span (CharLSTM)", 90.87, 91.02,
            sentences=(1600, 1600), speed=455.9),
    RunSpec("spmrl-hebrew", "5d2e8a70b3c1", "spmrl", "hebrew", "mlparse span (CharLSTM)", 90.12, 89.86,
            finished_at="2026-11-12T09:30:00+00:00", sentences=(500, 716)),
    RunSpec("spmrl-hebrew", "c4419be0fd27", "spmrl", "hebrew", "mlparse span (CharLSTM)", 90.61, 90.33,
            finished_at="2026-11-19T22:10:00+00:00", sentences=(500, 716)),
    RunSpec("spmrl-hebrew-la", "e6f0a2d9147b", "spmrl", "hebrew", "mlparse label-attention (CharLSTM)",
            90.95, 90.71, model="label-attention", sentences=(500, 716), speed=301.4),
    RunSpec("spmrl-polish", "19ab3c7e5f80", "spmrl", "polish", "mlparse span (CharLSTM)", 93.70, 93.48,
            steps=9000, sentences=(821, 822), speed=612.7),
    RunSpec("spmrl-korean", "7be2d41c09e5", "spmrl", "korean", "mlparse span (CharLSTM)", 86.90, 0.0,
            steps=4500, status=RUNNING),
    RunSpec("spmrl-swedish", "d03f6e8b2a91", "spmrl", "swedish", "mlparse span (CharLSTM)", 74.20, 0.0,
            steps=1500, status=FAILED,
            error="CUDA out of memory while parsing dev batch 7 (tried to allocate 2.31 GiB); "
                  "lower batch_size or max_len_dev in the recipe"),
    RunSpec("ud-english-ewt", "2c7d9e0a41f6", "ud", "UD_English-EWT",
            "mlparse biaffine (self-attentive, words + tags)", 88.42, 88.10, task="dependency", model="biaffine", sentences=(2001, 2077), speed=1210.5),
    RunSpec("ud-hungarian-szeged", "8e31b0c2d7a5", "ud", "UD_Hungarian-Szeged",
            "mlparse biaffine (self-attentive, words + tags)", 79.86, 78.95, steps=3000, task="dependency",
            model="biaffine", sentences=(441, 449), speed=980.2),
)
BROKEN = ("free-german", "66c1e0a9d4b2")


def dev_curve(spec: RunSpec, rng: random.Random) -> List[LogEntry]:
    """A saturating dev curve (F1, or LAS for dependency runs) with noise, learning-rate warmup then decay,
    and best-so-far flags."""
    entries: List[LogEntry] = []
    best = -1.0
    steps_per_epoch = 2400
    planned = spec.steps if spec.status == COMPLETE else 12_000
    tau = 1600.0 * min(1.0, planned / 9000.0)  # shorter runs (the sample) converge faster
    for step in range(spec.eval_every, spec.steps + 1, spec.eval_every):  # running/failed runs stop early
        progress = 1.0 - math.exp(-step / tau)
        score = spec.dev_score - 0.3 - (spec.dev_score - 30.0) * (1.0 - progress) + rng.gauss(0.0, 0.3)
        is_best = score > best
        best = max(best, score)
        lr = 0.0008 * min(1.0, step / 1000.0) * (0.5 ** (step // 4000))
        entries.append(LogEntry(step=step, epoch=round(step / steps_per_epoch, 3), dev_score=round(score, 2),
                                metric=dev_metric(spec.task), lr=lr, train_loss=round(40.0 * math.exp(-step / 2500.0) + 1.5 + rng.random(), 3),
                                elapsed_seconds=round(step * 0.21, 1), best=is_best))
    return entries


def scores(f1: float, sentences: int, rng: random.Random) -> SplitScores:
    """Consistent LR/LP/F1 (F1 is their harmonic mean, to 2 decimals) and a complete-match rate."""
    spread = rng.uniform(-0.4, 0.4)
    recall, precision = f1 - spread, f1 + spread
    return SplitScores(recall=round(recall, 2), precision=round(precision, 2),
                       f1=round(2 * recall * precision / (recall + precision), 2),
                       complete_match=round(f1 - 55.0 + rng.uniform(-3, 3), 2), sentences=sentences)


def dependency_scores(las: float, sentences: int, rng: random.Random) -> SplitScores:
    """UAS above LAS, CLAS below it, as depeval reports them under the CoNLL 2018 convention."""
    return SplitScores(uas=round(las + rng.uniform(2.5, 4.0), 2), las=round(las, 2),
                       clas=round(las - rng.uniform(2.0, 4.0), 2), sentences=sentences,
                       scorer="depeval conll18-v1.2+depeval-1.0 (conll18)")


def build_runs(root: Path) -> Path:
    """Write every run of :data:`RUNS` (and the broken one) under ``root/runs``; returns that folder."""
    runs = root / "runs"
    rng = random.Random(1808)
    for spec in RUNS:
        run_dir = RunDir(runs / spec.recipe / spec.run_id)
        log = dev_curve(spec, rng)
        results = RunResults(
            mlparse_version="0.1.0", status=spec.status, error=spec.error, recipe=spec.recipe,
            recipe_hash=spec.run_id * 5 + "abcd", run_id=spec.run_id, task=spec.task, model=spec.model,
            system=spec.system, dataset=spec.dataset, language=spec.language,
            started_at="2026-11-10T08:00:00+00:00", hardware=dict(spec.hardware),
            versions={"python": "3.11.7", "torch": "2.13.0", "mlparse": "0.1.0"},
        )
        if spec.status == COMPLETE:
            best_dev = max(entry.dev_score for entry in log)  # the reported dev score is the best evaluation
            if spec.task == "dependency":
                results.dev = dependency_scores(best_dev, spec.sentences[0], rng)
                results.test = dependency_scores(spec.test_score, spec.sentences[1], rng)
            else:
                results.dev = scores(best_dev, spec.sentences[0], rng)
                results.dev.f1 = best_dev
                results.test = scores(spec.test_score, spec.sentences[1], rng)
            results.parse_sentences_per_second = spec.speed
            results.training_seconds = spec.steps * 0.21 + 3 * 60
            results.epochs = round(spec.steps / 2400, 2)
            results.best_step = max(log, key=lambda e: e.dev_score).step
            results.finished_at = spec.finished_at
        elif spec.status == FAILED:
            results.finished_at = spec.finished_at
        run_dir.write_results(results)
        run_dir.write_log([entry.to_json_dict() for entry in log])
    # A results.json cut off mid-write (e.g. copied from a machine while it was being written).
    broken = runs / BROKEN[0] / BROKEN[1]
    broken.mkdir(parents=True)
    (broken / "results.json").write_text('{\n  "schema_version": 1,\n  "status": "complete",\n  "dev": {"f1": 8',
                                         encoding="utf-8")
    return runs


# ------------------------------------------------------------------------------------- static checks

class PageScan(HTMLParser):
    """Tags, and every URL-bearing attribute, of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: Dict[str, int] = {}
        self.urls: List[Tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag: str, attrs: Sequence[Tuple[str, Optional[str]]]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href", "srcset", "poster", "data", "action", "formaction") and value is not None:
                self.urls.append((tag, name, value))


class Checks:
    def __init__(self) -> None:
        self.failed: List[str] = []

    def check(self, ok: bool, what: str) -> bool:
        print(f"  [{'ok' if ok else 'FAIL'}] {what}")
        if not ok:
            self.failed.append(what)
        return ok


def static_checks(html: str, checks: Checks, expect_images: int, min_tables: int = 3) -> None:
    scan = PageScan()
    scan.feed(html)
    external = [(tag, name, value[:60]) for tag, name, value in scan.urls if not value.startswith("data:")]
    checks.check(not external, f"every src/href is a data: URI ({len(scan.urls)} found; external: {external})")
    css = " ".join(re.findall(r"<style[^>]*>(.*?)</style>", html, flags=re.S))
    css_urls = [u for u in re.findall(r"url\(([^)]*)\)", css) if not u.strip("'\" ").startswith("data:")]
    checks.check(not css_urls and "@import" not in css, f"CSS has no url()/@import to fetch ({css_urls})")
    checks.check(scan.counts.get("script", 0) == 0 and scan.counts.get("link", 0) == 0,
                 f"no <script> or <link> elements ({scan.counts.get('script', 0)}, {scan.counts.get('link', 0)})")
    images = [value for tag, name, value in scan.urls if tag == "img" and name == "src"]
    pngs = [value for value in images if value.startswith("data:image/png;base64,")]
    signatures = [base64.b64decode(value.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n" for value in pngs]
    checks.check(len(pngs) == len(images) >= expect_images and all(signatures),
                 f"{len(pngs)} <img> with base64 PNG data (expected ≥ {expect_images}), all with a PNG signature")
    checks.check(scan.counts.get("table", 0) >= min_tables, f"{scan.counts.get('table', 0)} tables in the HTML")


# ------------------------------------------------------------------------------------- browser checks

PROBE = """
<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var wide = Array.prototype.slice.call(document.querySelectorAll('body *')).filter(function (el) {
    var box = el.getBoundingClientRect();
    return box.right > document.documentElement.clientWidth + 1 && !el.closest('.scroll');
  }).map(function (el) { return el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''); });
  var scrolls = Array.prototype.slice.call(document.querySelectorAll('.scroll')).filter(function (el) {
    return el.scrollWidth > el.clientWidth + 1;
  }).map(function (el) {
    var heading = el.previousElementSibling;
    while (heading && !/^H[1-6]$/.test(heading.tagName)) { heading = heading.previousElementSibling; }
    return (heading ? heading.textContent : '?') + ' (' + (el.scrollWidth - el.clientWidth) + ' px hidden)';
  });
  var result = {
    tables: document.querySelectorAll('table').length,
    rows: document.querySelectorAll('tbody tr').length,
    images: imgs.length,
    dataImages: imgs.filter(function (i) { return i.src.indexOf('data:') === 0; }).length,
    decoded: imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length,
    imageSizes: imgs.map(function (i) { return [i.naturalWidth, i.naturalHeight, Math.round(i.width)]; }),
    resources: performance.getEntriesByType('resource').map(function (r) { return r.name; }),
    height: document.documentElement.scrollHeight,
    pageWidth: document.documentElement.scrollWidth,
    viewportWidth: document.documentElement.clientWidth,
    overflowing: wide,
    scrolledTables: scrolls
  };
  var out = document.createElement('pre');
  out.id = 'browser-check';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>
"""


def chromium(binary: Path, profile: Path, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    command = [str(binary), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def browser_probe(binary: Path, page: Path, work: Path) -> Tuple[Optional[dict], str]:
    """Load a probe copy of ``page`` and return what the probe script reported (None when absent)."""
    probe_page = work / "report_probe.html"
    html = page.read_text(encoding="utf-8")
    probe_page.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    result = chromium(binary, work / "profile-dom", f"--window-size={WIDTH},{MIN_HEIGHT}",
                      "--virtual-time-budget=5000", "--dump-dom", probe_page.as_uri())
    match = re.search(r'<pre id="browser-check">(.*?)</pre>', result.stdout, flags=re.S)
    if match is None:
        return None, result.stderr[-2000:]
    text = match.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return json.loads(text), result.stderr


def browser_checks(binary: Path, page: Path, work: Path, screenshot: Path, checks: Checks,
                   expect_images: int, min_tables: int = 3) -> None:
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
    print(f"browser: {version or binary}")
    start = time.perf_counter()
    seen, stderr = browser_probe(binary, page, work)
    if not checks.check(seen is not None, "headless --dump-dom rendered the page and ran the probe"):
        print(stderr)
        return
    assert seen is not None
    checks.check(seen["tables"] >= min_tables and seen["rows"] > 0,
                 f"{seen['tables']} tables, {seen['rows']} body rows in the rendered DOM")
    checks.check(seen["images"] == seen["dataImages"] >= expect_images,
                 f"{seen['images']} <img> elements, {seen['dataImages']} with data: URIs")
    checks.check(seen["decoded"] == seen["images"],
                 f"{seen['decoded']}/{seen['images']} images decoded by the browser "
                 f"(natural × shown px: {', '.join(f'{w}×{h}@{s}' for w, h, s in seen['imageSizes'])})")
    checks.check(not seen["resources"], f"no network/resource requests ({seen['resources'][:5]})")
    checks.check(seen["pageWidth"] <= seen["viewportWidth"] and not seen["overflowing"],
                 f"nothing wider than the {seen['viewportWidth']} px viewport (page {seen['pageWidth']} px; "
                 f"overflowing: {seen['overflowing'][:5]})")
    checks.check(not seen["scrolledTables"], "every table fits its box at this width (none needs a horizontal "
                 f"scroll, which a screenshot or a printout would cut): {seen['scrolledTables'] or 'ok'}")
    height = max(int(seen["height"]), 600)
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    if screenshot.exists():
        screenshot.unlink()
    result = chromium(binary, work / "profile-shot", f"--window-size={WIDTH},{height}",
                      f"--screenshot={screenshot.resolve()}", page.as_uri())
    ok = screenshot.is_file() and screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if not checks.check(ok, f"full-page screenshot {WIDTH}×{height} px written to {screenshot}"):
        print(result.stderr[-2000:])
    print(f"browser time: {time.perf_counter() - start:.1f} s for two headless loads")


# ------------------------------------------------------------------------------------- main

def arguments(description: str, screenshot: str, argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """The command line of a browser check: --screenshot (default ``reports/<screenshot>``), --chromium, --keep."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--screenshot", type=Path, default=REPO / "reports" / screenshot,
                        help=f"where the full-page PNG goes (default: reports/{screenshot})")
    parser.add_argument("--chromium", type=Path, default=DEFAULT_CHROMIUM, help="the browser binary")
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the runs and the report in this folder and keep them (default: a temp dir)")
    return parser.parse_args(argv)


def work_folder(keep: Optional[Path], prefix: str) -> Tuple[Path, Optional[tempfile.TemporaryDirectory]]:
    """``keep`` emptied, or a temporary folder (and its handle, to clean up)."""
    if keep is None:
        temp = tempfile.TemporaryDirectory(prefix=prefix)
        return Path(temp.name), temp
    if keep.exists():
        shutil.rmtree(keep)
    keep.mkdir(parents=True)
    return keep, None


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = arguments(__doc__.split("\n\n")[0], "report_check.png", argv)
    work, temp = work_folder(args.keep, "report-browser-check-")
    checks = Checks()
    try:
        runs = build_runs(work)
        page = work / "report.html"
        print(f"runs folder: {runs} ({len(RUNS)} runs written through RunDir, plus 1 broken results.json)")
        command = [sys.executable, "-m", "mlparse", "report", str(runs), "--format", "html", "--out", str(page)]
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, cwd=work)
        print(f"$ mlparse report {runs} --format html --out {page}  ({time.perf_counter() - start:.1f} s)")
        if not checks.check(result.returncode == 0 and page.is_file(),
                            f"mlparse report exited {result.returncode} and wrote the page"):
            print(result.stdout[-3000:], result.stderr[-3000:])
            return 1
        html = page.read_text(encoding="utf-8")
        print(f"page: {len(html) / 1024:.0f} KiB")
        # ptb-sample, free and spmrl bars, UD UAS and LAS bars, and one dev-curve figure per dataset with logs.
        expect_images = 5 + 4
        print("static checks:")
        static_checks(html, checks, expect_images)
        checks.check("Δ best measured" in html and "published" in html, "Δ row and published rows present")
        for needle in ("running", "failed", "unreadable", "CUDA out of memory", "invalid JSON"):
            checks.check(needle in html, f"the page mentions {needle!r}")
        in_browser(args, page, work, checks, expect_images)
    finally:
        if temp is not None:
            temp.cleanup()
    return verdict(checks)


def in_browser(args: argparse.Namespace, page: Path, work: Path, checks: Checks, expect_images: int,
               min_tables: int = 3) -> None:
    """The browser checks, or how to install Chromium where it is missing."""
    if not args.chromium.exists():
        print(f"\n{args.chromium} not found: browser checks skipped. Install Debian's Chromium with\n"
              "    apt-get update && apt-get install -y chromium\n"
              "and run this script again (or pass --chromium PATH).")
        return
    print("browser checks:")
    browser_checks(args.chromium, page, work, args.screenshot, checks, expect_images, min_tables)


def verdict(checks: Checks) -> int:
    """Print the outcome; the exit status (1 when a check failed)."""
    print(f"\n{'all checks passed' if not checks.failed else f'{len(checks.failed)} check(s) FAILED'}")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
