"""The one chart mechanism: Vega-Lite specs written as plain dicts, one helper for each job.

Whatever follows the state (an axis range, a label, a number over a bar) lives in named top-level
``datasets``, never as a literal in the spec: Streamlit then sends a new state as new data and
Vega updates the chart in place. Specs are dicts (microseconds; Altair objects cost tens of
milliseconds); the tests validate every one against Vega-Lite's schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

import numpy as np

from specviz import palette
from specviz.figures import fit
from specviz.figures.numbers import significant, thousands
from specviz.figures.style import ChartStyle
from specviz.limits import TABLE_ROWS
from specviz.palette import Role
from specviz.text import NUMBERS, language, titles

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
FONT = "Arial, 'Liberation Sans', Helvetica, sans-serif"

#: The second cue of a patterned role (Vega-Lite has no fill patterns): its bars' outline.
DASH: dict[str, list[int]] = {"/": [6, 3], ".": [2, 2], "x": [8, 3, 2, 3]}
#: A role drawn as a dashed ink line in a legend (an exact value's outline), not as a bar.
LINE = "line"
#: How far an exact value's stroke reaches past its bar's sides, as a share of the word's band.
STROKE_PAST = 0.015

#: Steps between the ticks of a share axis, the first that leaves at most six intervals.
_TICK_STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25)


def config(style: ChartStyle) -> dict:
    """Fonts and sizes for a screen or a projector, the house look of every chart."""
    size = style.font_size
    # Fonts named everywhere: Streamlit sets its own body font on axes and legends otherwise,
    # and the text fitting (:mod:`specviz.figures.fit`) measures Arial.
    fonts = {"labelFont": FONT, "titleFont": FONT, "labelFontSize": size, "titleFontSize": size}
    ink = dict.fromkeys(("labelColor", "titleColor", "domainColor", "tickColor"), palette.INK)
    # A legend's columns on a chart under 800 px (a 1280 px projector's side column) keep 22 px,
    # as the page's type does there: at 24 px they would run past the chart's edge.
    keys = {"expr": f"width < 800 ? {size - 2} : {size}"} if style.projector else size
    legend = {"labelFontSize": keys, "labelLimit": 0, "orient": "top", "direction": "vertical"}
    lettering = {"font": FONT, "color": palette.INK}
    marks = NUMBERS[language()]
    number = {"decimal": marks["decimal"], "thousands": marks["group"], "grouping": [3]}
    number |= {"currency": ["", ""], "percent": marks["percent"]}
    # d3 writes an axis's numbers in English unless told: its ticks as the labels beside them.
    locale = {} if language() == "en" else {"locale": {"number": number}}
    return {
        "font": FONT,
        "view": {"stroke": None, "continuousHeight": style.height},
        "axis": {**fonts, **ink, "gridColor": palette.GRID},
        "legend": {**fonts, **legend, "symbolSize": 400 if style.projector else 200},
        "title": {**lettering, "fontSize": style.title_size, "anchor": "start"},
        "text": {**lettering, "fontSize": style.text_size},
        # Marks stay out of the accessibility tree: Vega gives the container of a mark without
        # a field an image role and no name, and the chart's alt text and the caption under it
        # say what every mark shows, with its numbers.
        "mark": {"aria": False},
        **locale,
    }


def chart(
    style: ChartStyle,
    title: str | list[str],
    datasets: dict[str, list[dict]],
    layers: Sequence[dict],
    **top: object,
) -> dict:
    """A layered chart whose ``layers`` read ``datasets``; ``top`` adds top-level properties.
    ``title`` must not carry numbers that change with the state: that would remount the chart."""
    datasets = dict(datasets)  # chart() adds the columns its tooltips write (_written)
    return {
        "$schema": SCHEMA,
        "title": title,
        "config": config(style),
        "height": style.height,
        "datasets": datasets,
        "layer": [_written(layer, datasets) for layer in layers],
        # Room for a y axis title's glyphs, which Vega sets at the very edge.
        "padding": {"left": 3, "right": 0, "top": 0, "bottom": 0},
        **top,
    }


def data(name: str) -> dict:
    """A layer's reference to a named dataset."""
    return {"name": name}


def of_kind(kind: str) -> dict:
    """A layer's transform that keeps its dataset's rows of field ``kind`` equal to ``kind`` (one
    dataset holds a chart's several kinds of rows; :func:`numbers` reads the same filter)."""
    return {"filter": f"datum.kind == {literal(kind)}"}


def word_x(style: ChartStyle, title: str | None = None) -> dict:
    """The x encoding of one group of bars per word: field ``word`` in the order of field ``i``
    (data, not spec), labels horizontal."""
    return {
        "field": "word",
        "type": "nominal",
        # "op": layers' data are combined for the axis, and a sort by field needs an aggregate.
        "sort": {"field": "i", "op": "min"},
        "title": title,
        "axis": {"labelAngle": 0, "labelOverlap": False, "labelLimit": style.width // 4},
    }


def share_y(title: str | None = None, field: str = "share") -> dict:
    """A y encoding of shares (0 to 1, shown as percent)."""
    return {
        "field": field,
        "type": "quantitative",
        "title": title,
        "axis": {"format": ".0%", "tickCount": 5},
        "scale": {"domainMin": 0},
    }


def role_bar(role: Role, style: ChartStyle, **mark: object) -> dict:
    """A bar mark in a role's colour, its pattern's second cue as a dashed ink outline."""
    dash = DASH.get(role.pattern)
    outline = (
        {"stroke": palette.INK, "strokeDash": dash, "strokeWidth": style.line_width / 2 + 0.5}
        if dash
        else {"stroke": role.color, "strokeWidth": 1}
    )
    return {"type": "bar", "fill": role.color, **outline, **mark}


def legend_scale(names: Sequence[str], roles: Sequence[Role]) -> dict:
    """A colour scale naming each role in the legend (the names carry the roles' icons)."""
    return {"domain": list(names), "range": [r.color for r in roles]}


def title(text: str, style: ChartStyle) -> list[str]:
    """A title in the chart's lettering, in lines that fit its narrowest width (a Vega title
    never wraps)."""
    width = (style.width - 2 * fit.SIDE_MARGIN) / 1.1  # bold type is about a tenth wider
    return fit.wrap(style.fill(text), style.title_size, width)


def rows(labels: Sequence[str], **columns: object) -> list[dict]:
    """A dataset's rows, one per word: its place ``i``, the word, and its value of each column
    (one value per word, or one for all) as plain Python numbers and texts."""
    cells = {}
    for name, values in columns.items():
        if isinstance(values, str) or np.ndim(values) == 0:  # one value for all
            values = [values] * len(labels)
        elif len(values) != len(labels):
            raise ValueError(f"column {name!r} has {len(values)} values for {len(labels)} words")
        cells[name] = [v.item() if isinstance(v, np.generic) else v for v in values]
    return [
        {"i": i, "word": w, **{k: v[i] for k, v in cells.items()}} for i, w in enumerate(labels)
    ]


def literal(value: object) -> str:
    """``value`` written as a Vega expression's literal (JSON is)."""
    return json.dumps(value, ensure_ascii=False)


def tooltip(*fields: str | tuple[str, str | None] | tuple[str, str | None, Writer]) -> list[dict]:
    """A tooltip's lines: a field's name (a text), ``(field, title)``, or ``(field, title,
    writer)`` for a number, which ``writer`` (``numbers.percent``, ``numbers.tv_text``, ...)
    writes in Python when :func:`chart` builds the chart: a tooltip reads as the page's text does,
    never in a format of Vega's own."""
    lines = []
    for entry in fields:
        field, heading, writer = (*([entry] if isinstance(entry, str) else entry), None, None)[:3]
        # Untitled, Vega would head the line with the field's name: a word of the code.
        heading = heading or _TIP_TITLES[field]
        if writer:  # its column, written by chart()
            line = {"field": f"{field}_shown", "title": heading, _WRITER: (field, writer)}
        else:
            line = {"field": field, "title": heading}
        lines.append(line | {"type": "nominal"})
    return lines


def numbers(figure: dict) -> list[dict[str, list[str]]]:
    """The chart's numbers as its tooltips write them, for a reader who cannot hover (a screen
    reader, a keyboard, a phone): a table (heading -> column) per dataset, kind of row
    (:func:`of_kind`) and tooltip a layer has, each once, of at most
    :data:`~specviz.limits.TABLE_ROWS` rows: of lines' hundreds of points, a few along each
    line (its first and last among them; the chart's description says the rest)."""
    tables: dict[tuple, dict[str, list[str]]] = {}

    def visit(layer: dict, name: str | None, kind: str | None) -> None:
        name = layer.get("data", {}).get("name", name)
        for step in layer.get("transform", []):
            if (found := _KIND.fullmatch(str(step.get("filter", "")))) is not None:
                kind = json.loads(found[1])
        rows = [r for r in figure["datasets"].get(name, ()) if kind in (None, r.get("kind"))]
        lines = layer.get("encoding", {}).get("tooltip")
        if len(rows) > TABLE_ROWS and "detail" in layer.get("encoding", {}):
            rows = _thinned(rows, layer["encoding"]["detail"]["field"])
        if isinstance(lines, list) and 0 < len(rows) <= TABLE_ROWS:
            columns = tuple((line["title"], line["field"]) for line in lines)
            tables.setdefault(
                (name, kind, columns), {t: [_cell(r.get(f)) for r in rows] for t, f in columns}
            )
        for inner in layer.get("layer", []):
            visit(inner, name, kind)

    for layer in figure.get("layer", []):
        visit(layer, None, None)
    return list(tables.values())


def _thinned(rows: list[dict], line: str) -> list[dict]:
    """A few points of each line (rows of one ``line`` field), evenly spaced along it with its
    first and last: at most :data:`~specviz.limits.TABLE_ROWS` in all."""
    lines: dict[object, list[dict]] = {}
    for row in rows:
        lines.setdefault(row.get(line), []).append(row)
    each = max(2, TABLE_ROWS // len(lines))
    return [
        points[int(i)]
        for points in lines.values()
        for i in np.unique(np.linspace(0, len(points) - 1, min(each, len(points))).round())
    ]


#: The filter :func:`of_kind` writes, its kind as a JSON string.
_KIND = re.compile(r'datum\.kind == ("(?:[^"\\]|\\.)*")')


def _cell(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float):
        return thousands(value) if float(value).is_integer() else significant(float(value))
    return str(value)


#: The heading of a tooltip's line that names none: the word, and its share.
_TIP_TITLES = titles("vega", ("word", "share"))


#: A tooltip line's writer, until :func:`chart` writes its column and drops the key.
_WRITER = "specviz.writer"
Writer = Callable[[float], str]


def _written(layer: dict, datasets: dict[str, list[dict]], name: str | None = None) -> dict:
    """``layer`` (and the layers inside it) with every written tooltip line's column added to the
    dataset the layer reads (``datasets`` is updated with copies of the rows)."""
    name, out = layer.get("data", {}).get("name", name), dict(layer)
    if isinstance(lines := layer.get("encoding", {}).get("tooltip"), list):
        kept = [dict(line) for line in lines]
        for line in kept:
            if _WRITER in line:
                field, writer = line.pop(_WRITER)
                if name not in datasets:
                    raise ValueError(f"a tooltip writes {field!r}, but its layer reads no dataset")
                datasets[name] = [
                    row | {line["field"]: "" if row.get(field) is None else writer(row[field])}
                    for row in datasets[name]
                ]
        out["encoding"] = layer["encoding"] | {"tooltip": kept}
    if "layer" in layer:
        out["layer"] = [_written(inner, datasets, name) for inner in layer["layer"]]
    return out


def text(field: str, mark: dict | None = None, **encoding: object) -> dict:
    """A text mark (a number over a bar, a line of words) reading field ``field``, placed by
    ``encoding``; ``mark`` adds properties to the house look (:func:`config`'s ``text``)."""
    return {
        "mark": {"type": "text", **(mark or {})},
        "encoding": {**encoding, "text": {"field": field, "type": "nominal"}},
    }


def share_ticks(room: float) -> list[dict]:
    """Dataset ``yticks`` of a :func:`room_y` axis reaching up to ``room``: at most seven evenly
    spaced ticks, never past 100 % (the axis only goes higher to make room for numbers)."""
    top = min(room, 1.0)
    step = next((s for s in _TICK_STEPS if top / s <= 6 + 1e-9), _TICK_STEPS[-1])
    return [{"v": round(k * step, 10)} for k in range(int(top / step + 1e-9) + 1)]


def ticks_from(dataset: str, field: str) -> dict:
    """An axis's tick values read from a dataset's field: they follow the data."""
    return {"expr": f"pluck(data('{dataset}'), '{field}')"}


def room_y(field: str, title: str | None = None) -> dict:
    """:func:`share_y` of a chart with numbers over its bars: from 0 up to exactly its room
    (:func:`room`: the numbers were fitted to that height), ticks from dataset ``yticks``."""
    y = share_y(title, field)
    # No tick count: Vega would thin the given values down to it.
    axis = {"format": ".0%", "values": ticks_from("yticks", "v")}
    return y | {"scale": y["scale"] | {"nice": False}, "axis": axis}


def unseen(dataset: str, **encoding: object) -> dict:
    """An invisible layer: its rows stretch the axes, or bring the data of an axis's ticks."""
    invisible = {"type": "point", "opacity": 0, "aria": False}
    return {"data": data(dataset), "mark": invisible, "encoding": encoding}


def room(dataset: str, field: str) -> list[dict]:
    """The layers that make a :func:`room_y` axis reach ``dataset``'s ``field`` and its ticks."""
    return [unseen(dataset, y=room_y(field)), unseen("yticks", y=room_y("v"))]


def role_bars(
    role: Role, colour: dict, style: ChartStyle, mark: dict | None = None, **encoding: object
) -> dict:
    """Bars in ``role``'s look, named by ``colour`` in the chart's one legend and placed by
    ``encoding``; a bar of no height is hidden (its outline would draw a line)."""
    y, y2 = encoding["y"]["field"], encoding.get("y2", {}).get("field")
    empty = f"datum.{y} != {f'datum.{y2}' if y2 else 0}"
    return {
        "mark": role_bar(role, style, **(mark or {})),
        "encoding": {"color": colour, "opacity": shown_if(empty), **encoding},
    }


def colour(
    names: Sequence[str],
    roles: Sequence[Role],
    style: ChartStyle,
    field: str = "part",
    **legend: object,
) -> dict:
    """The colour channel of a chart's one legend: a row whose ``field`` (:func:`named`) is
    ``names[k]`` is drawn as ``roles[k]`` (:func:`symbols`); ``legend`` adds properties."""
    return {
        "field": field,
        "type": "nominal",
        "title": "bar",  # each bar is described to screen readers; the legend needs no title
        "scale": legend_scale(names, roles),
        "legend": {"title": None, **symbols(names, roles, style), **legend},
    }


def named(name: str) -> dict:
    """The transform giving a layer's rows the legend entry ``name`` in field ``part``."""
    return {"calculate": literal(name), "as": "part"}


def symbols(names: Sequence[str], roles: Sequence[Role], style: ChartStyle) -> dict:
    """Legend symbols that repeat the marks' cues other than colour: a patterned role's square
    has its bars' dashed ink outline, a :data:`LINE` role is a dashed ink stroke."""
    shape, dash, ink, width = {}, {}, {}, {}
    for name, role in zip(names, roles, strict=True):
        if role.pattern == LINE:
            shape[name], width[name] = "stroke", style.line_width
            dash[name] = [2 * style.line_width, style.line_width]
        elif role.pattern in DASH:
            dash[name] = DASH[role.pattern]
        if role.pattern:
            ink[name] = palette.INK
    return {
        "symbolType": _by_entry(shape, "'square'"),
        "symbolDash": _by_entry(dash, "[]"),
        "symbolStrokeColor": _by_entry(ink, "scale('color', datum.value)"),
        "symbolStrokeWidth": _by_entry(width, "1.5"),
    }


def _by_entry(values: dict[str, object], otherwise: str) -> dict:
    """A Vega expression: ``values[datum.value]`` for the entries it names, else ``otherwise``."""
    expr = otherwise
    for name, value in values.items():
        expr = f"datum.value === {literal(name)} ? {literal(value)} : {expr}"
    return {"expr": expr}


def pair_offset(domain: Sequence[object], **channel: object) -> dict:
    """The ``xOffset`` channel (``channel``: its field or datum) of two bars to a word, with a
    gap of :data:`specviz.figures.fit.PAIR_GAP` between them and none outside."""
    scale = {"domain": list(domain), "paddingInner": fit.PAIR_GAP, "paddingOuter": 0}
    return {"type": "nominal", **channel, "scale": scale}


def pair_span(k: int) -> tuple[float, float]:
    """Where bar ``k`` (0 left, 1 right) of a pair sits in its word's band, :data:`STROKE_PAST`
    past its sides but within the band."""
    step = 1 / (2 - fit.PAIR_GAP)
    start = k * step
    return max(0.0, start - STROKE_PAST), min(1.0, start + step * (1 - fit.PAIR_GAP) + STROKE_PAST)


def strokes(
    x: dict,
    y: dict,
    style: ChartStyle,
    dash: Sequence[int] | None = None,
    span: tuple[float, float] = (0.0, 1.0),
    **encoding: object,
) -> dict:
    """Exact values as dashed ink strokes over bars, from band position ``span[0]`` to
    ``span[1]`` of each word ``x`` (a whole band, or one bar of a pair: :func:`pair_span`)."""
    mark = {"type": "rule", "stroke": palette.INK, "strokeWidth": style.line_width + 1}
    x2 = {"field": x["field"], "bandPosition": span[1]}
    return {
        "mark": mark | ({"strokeDash": list(dash)} if dash else {}),
        "encoding": {"x": {**x, "bandPosition": span[0]}, "x2": x2, "y": y, **encoding},
    }


def shown_if(test: str) -> dict:
    """An opacity that hides a mark where ``test`` fails (filtering would drop its word)."""
    return {"condition": {"test": test, "value": 1}, "value": 0}


def key_height(style: ChartStyle) -> float:
    """Height (px) of one :func:`key_row`: about a legend's row."""
    return style.font_size * (1.3 if style.projector else 1.5)


def height(style: ChartStyle, rows: int) -> int:
    """A chart's height (px) with ``rows`` rows of title, legend and keys over ``style.height``'s
    one each; a projector's plot gives two rows up, so a control and its chart fit 1280×720."""
    return round(style.height + max(0, rows - 2 * style.projector) * key_height(style))


def legend_over(rows: int, style: ChartStyle) -> dict:
    """Legend properties placing it above ``rows`` key rows, in their lettering."""
    return {"offset": round(rows * key_height(style)) + 6, "labelFont": FONT}


def key_row(
    dataset: str,
    row: int,
    style: ChartStyle,
    line: dict | None = None,
    field: str = "label",
    **words: object,
) -> list[dict]:
    """Words that change with the state, the one-row ``dataset``'s ``field`` (``words``: their mark
    properties), ``row`` rows above the plot (0: right over it), after a stroke with the ``line``
    mark properties where field ``line`` is true. Marks, as a legend of data would sit beside the
    other one, too wide for a phone."""
    y = {"value": -(row + 0.5) * key_height(style) - 4}
    mark = {"align": "left", "baseline": "middle", "fontSize": style.font_size, **words}
    label = {"data": data(dataset)} | text(field, mark, x={"value": 36 if line else 0}, y=y)
    if not line:
        return [label]
    ends = {"x": {"value": 0}, "x2": {"value": 28}}  # the stroke, before the words at 36 px
    stroke = {
        "data": data(dataset),
        "mark": {"type": "rule", "strokeWidth": style.line_width + 1, **line},
        "encoding": {**ends, "y": y, "opacity": shown_if("datum.line")},
    }
    return [stroke, label]
