"""Tables a reader filters, sorts and searches in the page itself: a small inline script (no network, no
library) over the rows' data attributes. The script is a constant; what it reads is escaped attribute
text, compared and sorted as text or numbers, never evaluated or inserted as HTML.

A listing is a <form class='controls' data-table=ID> of named controls before <table id=ID>:
`outcome`, `level` and `subset` keep the rows whose data-outcome / data-level equal the choice (or
whose data-subsets, a JSON list, holds it); `search` keeps the rows whose data-task holds the text
(case-insensitive); `sort` names the data attribute to sort by (an option with data-numeric sorts as
numbers, missing values last) and `order` is asc or desc. The form's .count says how many are shown.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from simreflect.analysis.compare import episode_score
from simreflect.viewer.markup import e
from simreflect.viewer.outcome import OUTCOMES, episode_outcome, outcome_html, score_text

LISTING_SCRIPT = r"""
(function () {
  function cell(row, key) { var v = row.getAttribute('data-' + key); return v === null ? '' : v; }
  function setup(form) {
    var table = document.getElementById(form.getAttribute('data-table'));
    if (!table || !table.tBodies.length) { return; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var count = form.querySelector('.count');
    function value(name) { var c = form.elements[name]; return c ? c.value : ''; }
    function apply() {
      var outcome = value('outcome'), level = value('level'), subset = value('subset');
      var query = value('search').toLowerCase(), key = value('sort'), order = value('order');
      var sortControl = form.elements['sort'];
      var numeric = false;
      if (sortControl && sortControl.selectedIndex >= 0) {
        numeric = sortControl.options[sortControl.selectedIndex].hasAttribute('data-numeric');
      }
      var shown = 0;
      rows.forEach(function (row) {
        var keep = (!outcome || cell(row, 'outcome') === outcome) && (!level || cell(row, 'level') === level) &&
          (!query || cell(row, 'task').toLowerCase().indexOf(query) >= 0);
        if (keep && subset) {
          var subsets = [];
          try { subsets = JSON.parse(cell(row, 'subsets') || '[]'); } catch (err) { subsets = []; }
          keep = Array.isArray(subsets) && subsets.indexOf(subset) >= 0;
        }
        row.hidden = !keep;
        if (keep) { shown += 1; }
      });
      if (key) {
        var sign = order === 'desc' ? -1 : 1;
        var sorted = rows.slice().sort(function (a, b) {
          var x = cell(a, key), y = cell(b, key), c;
          if (numeric) {
            var p = parseFloat(x), q = parseFloat(y);
            if (isNaN(p) || isNaN(q)) { return isNaN(p) === isNaN(q) ? 0 : (isNaN(p) ? 1 : -1); }
            c = p - q;
          } else { c = x < y ? -1 : (x > y ? 1 : 0); }
          return sign * c || (cell(a, 'order') - cell(b, 'order'));
        });
        sorted.forEach(function (row) { body.appendChild(row); });
      }
      if (count) { count.textContent = shown + ' of ' + rows.length + ' shown'; }
    }
    form.addEventListener('input', apply);
    form.addEventListener('change', apply);
    form.addEventListener('submit', function (ev) { ev.preventDefault(); });
    apply();
  }
  Array.prototype.forEach.call(document.querySelectorAll('form.controls'), setup);
})();
"""


def _select(name: str, label: str, options: Sequence[tuple[str, str]], numeric: Sequence[str] = ()) -> str:
    opts = "".join(f"<option value='{e(v)}'{' data-numeric' if v in numeric else ''}>{e(t)}</option>"
                   for v, t in options)
    return f"<label>{e(label)} <select name='{e(name)}'>{opts}</select></label>"


def controls(table_id: str, *, outcomes: Sequence[str] = (), levels: Sequence[str] = (), subsets: Sequence[str] = (),
             sorts: Sequence[tuple[str, str]] = (), numeric: Sequence[str] = ()) -> str:
    """The form of a listing: filters for what is given, the search box, the sort and its order."""
    parts = []
    if outcomes:
        parts.append(_select("outcome", "result", [("", "all")] + [(o, o) for o in outcomes]))
    if levels:
        parts.append(_select("level", "level", [("", "all")] + [(lv, lv) for lv in levels]))
    if subsets:
        parts.append(_select("subset", "subset", [("", "all")] + [(s, s) for s in subsets]))
    parts.append("<label>task <input type='search' name='search' placeholder='task id contains'></label>")
    if sorts:
        parts.append(_select("sort", "sort by", list(sorts), numeric))
        parts.append(_select("order", "order", [("asc", "ascending"), ("desc", "descending")]))
    parts.append("<span class='count meta'></span>")
    return f"<form class='controls' data-table='{e(table_id)}'>{''.join(parts)}</form>"


def episode_listing(entries: Sequence[tuple[Mapping[str, Any], str]], levels: Sequence[str],
                    subsets: Sequence[str]) -> str:
    """The episode list of a run: (row, the page's link) per episode, with its controls."""
    present = {episode_outcome(row) for row, _ in entries}
    outcomes = [o for o in OUTCOMES if o in present or o in OUTCOMES[:3]]
    lines = []
    for k, (row, link) in enumerate(entries):
        outcome = episode_outcome(row)
        score = episode_score(row)
        label = f"{row['task']}" + (f" (run {row['run']})" if row.get("run") else "")
        attrs = {"order": k, "task": row["task"], "level": row["level"], "outcome": outcome,
                 "subsets": json.dumps([str(s) for s in row["subsets"]]),
                 "score": "" if score is None else repr(score), "rounds": row["rounds_used"]}
        data = " ".join(f"data-{name}='{e(v)}'" for name, v in attrs.items())
        lines.append(f"<tr {data}><td><a href='{e(link)}'>{e(label)}</a></td><td>{e(row['level'])}</td>"
                     f"<td>{outcome_html(outcome)}</td><td class='num'>{score_text(score)}</td>"
                     f"<td class='num'>{row['rounds_used']}</td><td>{row['solved_round'] or '-'}</td>"
                     f"<td>{row['crashes']}/{row['scripts']}</td><td class='num'>{row['tokens']:,}</td>"
                     f"<td>{e(', '.join(row['subsets']))}</td></tr>")
    form = controls("episodes", outcomes=outcomes, levels=levels, subsets=subsets,
                    sorts=[("order", "run order"), ("task", "task"), ("score", "score"), ("rounds", "rounds")],
                    numeric=("order", "score", "rounds"))
    return (form + "<table id='episodes'><thead><tr><th>episode</th><th>level</th><th>result</th><th>score</th>"
            "<th>rounds</th><th>solved in round</th><th>scripts crashed</th><th>tokens</th><th>subsets</th></tr>"
            "</thead><tbody>" + "".join(lines) + "</tbody></table>")
