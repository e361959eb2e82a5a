"""mlparse.report: leaderboards of runs beside published scores.

collect (find and load run folders tolerantly) → published (reference scores with
citations, from published.yaml) → leaderboard (tables, averages, Δ) → model.Report →
render_text / render_markdown / render_csv / render_json / render_html (+ plots) → output.
"""

from mlparse.report.model import Report, build_report
from mlparse.report.output import FORMATS, render, write_report

__all__ = ["FORMATS", "Report", "build_report", "render", "write_report"]
