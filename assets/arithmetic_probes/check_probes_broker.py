"""Recompute every number in probes_broker.tsv from the three broker-report content lists.

Run: /work/main/.venv/bin/python assets/arithmetic_probes/check_probes_broker.py

Each table_body is parsed with the standard library's html.parser (the venv has neither lxml nor
bs4/html5lib, which pandas.read_html needs). Cells are read by row label and column header, the
arithmetic is redone with Decimal and rounded half-up to the gold's number of decimals, and the
result is compared with the gold as a string. The script also checks that each JSON file loads, that
every table row has the same number of cells, and that the documents' numbers add up (segments to
totals, 同比/环比 to their columns, 占比 to the amounts, PE to price/EPS, months to the year to date).
Exits non-zero on any mismatch.
"""

import csv
import json
import re
import sys
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal as D
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = [
    "qingyun_appliance_2025_update",
    "tianshu_semi_equipment_2025_deep",
    "haixing_express_2025_monthly",
]
problems = []


def fail(msg):
    problems.append(msg)
    print("FAIL", msg)


class _TableParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.in_cell, self.spans = [], None, "", False, False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.in_cell, self.cell = True, ""
            if any(k in ("colspan", "rowspan") for k, _ in attrs):
                self.spans = True

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.row.append(self.cell.strip())
            self.in_cell = False
        elif tag == "tr":
            self.rows.append(self.row)

    def handle_data(self, data):
        if self.in_cell:
            self.cell += data


def num(s):
    s = s.replace(",", "").replace("%", "").replace("+", "").strip()
    return D(s)


def rnd(x, nd):
    return x.quantize(D(1).scaleb(-nd), rounding=ROUND_HALF_UP)


def pct(a, b):
    return (a / b - 1) * 100


def cagr(end, start, n):
    return (D(float(end / start) ** (1.0 / n)) - 1) * 100


class Table:
    def __init__(self, caption, rows):
        self.caption, self.rows = caption, rows
        self.header = rows[0]

    def col(self, name):
        return self.header.index(name)

    def row(self, label, nth=1):
        hits = [r for r in self.rows[1:] if r[0] == label]
        if len(hits) < nth:
            raise KeyError(f"{self.caption}: no row {label!r} #{nth}")
        return hits[nth - 1]

    def s(self, label, col, nth=1):
        """cell text by row label and column header"""
        return self.row(label, nth)[self.col(col)]

    def v(self, label, col, nth=1):
        return num(self.s(label, col, nth))

    def after(self, anchor, col):
        """the row right below the row labelled anchor (for repeated labels such as 同比（%）)"""
        i = [r[0] for r in self.rows].index(anchor)
        return num(self.rows[i + 1][self.col(col)])

    def colvals(self, col, labels=None):
        c = self.col(col)
        return [num(r[c]) for r in self.rows[1:] if labels is None or r[0] in labels]

    def sby(self, key_col, key, col):
        """cell text in column col of the row whose key_col cell is key"""
        kc, c = self.col(key_col), self.col(col)
        hits = [r[c] for r in self.rows[1:] if r[kc] == key]
        if len(hits) != 1:
            raise KeyError(f"{self.caption}: {len(hits)} rows with {key_col}={key}")
        return hits[0]

    def by(self, key_col, key, col):
        return num(self.sby(key_col, key, col))


def load(doc):
    path = HERE / "docs" / f"{doc}_content_list.json"
    with open(path, encoding="utf-8") as fh:
        items = json.load(fh)
    tables, pages, texts = {}, set(), []
    n_img = 0
    for i, it in enumerate(items):
        pages.add(it["page_idx"])
        if it["type"] == "table":
            p = _TableParser()
            p.feed(it["table_body"])
            widths = {len(r) for r in p.rows}
            if len(widths) != 1:
                fail(f"{doc} {it['table_caption'][0]}: rows of different widths {sorted(widths)}")
            if p.spans:
                fail(f"{doc} {it['table_caption'][0]}: has colspan/rowspan")
            cap = it["table_caption"][0]
            tables[cap.split("：")[0]] = Table(cap, p.rows)
        elif it["type"] == "image":
            n_img += 1
            nxt = items[i + 1]
            if nxt["type"] != "text" or not nxt["text"].startswith("图"):
                fail(f"{doc}: image {it['image_caption']} not followed by a describing paragraph")
        elif it["type"] == "text":
            texts.append(it["text"])
    if sorted(pages) != list(range(len(pages))) or not 4 <= len(pages) <= 6:
        fail(f"{doc}: pages {sorted(pages)}")
    if not 1 <= n_img <= 2:
        fail(f"{doc}: {n_img} images")
    print(
        f"{doc}: {len(items)} items, {len(pages)} pages, {len(tables)} tables "
        f"({', '.join(t.caption for t in tables.values())}), {n_img} images"
    )
    return tables, "\n".join(texts)


T = {d: load(d) for d in DOCS}


def close(a, b, tol, what):
    if abs(a - b) > D(str(tol)):
        fail(f"{what}: {a} vs {b}")


# ---------------------------------------------------------------- internal consistency
def check_forecast(doc, t, rev_lbl, g1, np_lbl, g2, eps_lbl, pe_lbl, price):
    yrs = t.header[1:]
    for a, b in zip(yrs, yrs[1:]):
        close(
            rnd(pct(t.v(rev_lbl, b), t.v(rev_lbl, a)), 1),
            t.v(g1, b, 1),
            0,
            f"{doc} revenue growth {b}",
        )
        close(
            rnd(pct(t.v(np_lbl, b), t.v(np_lbl, a)), 1),
            t.v(g2, b, 2 if g1 == g2 else 1),
            0,
            f"{doc} profit growth {b}",
        )
    for y in yrs:
        close(price / t.v(eps_lbl, y), t.v(pe_lbl, y), D("0.4"), f"{doc} PE≈price/EPS {y}")
    # EPS proportional to profit (one share count)
    sh = [t.v(np_lbl, y) / t.v(eps_lbl, y) for y in yrs]
    close(max(sh), min(sh), D(max(sh)) * D("0.005"), f"{doc} implied share count")


def check_comps(doc, t, price_c, eps1, eps2, pe1, pe2):
    for r in t.rows[1:]:
        if r[0] == "平均值":
            continue
        for e, p in ((eps1, pe1), (eps2, pe2)):
            close(
                rnd(num(r[t.col(price_c)]) / num(r[t.col(e)]), 1),
                num(r[t.col(p)]),
                0,
                f"{doc} {r[0]} {p}",
            )


# qingyun
tq, txt = T[DOCS[0]]
price = D(re.search(r"当前股价：([\d.]+)元", txt).group(1))
check_forecast(
    DOCS[0],
    tq["表1"],
    "营业收入（百万元）",
    "增长率（%）",
    "归母净利润（百万元）",
    "增长率（%）",
    "EPS（元/股）",
    "PE（倍）",
    price,
)
seg = tq["表3"]
parts = [r[0] for r in seg.rows[1:] if r[0] != "合计"]
for c in ("2023A收入（百万元）", "2024A收入（百万元）"):
    close(sum(seg.v(p, c) for p in parts), seg.v("合计", c), 0, f"qingyun segments sum {c}")
close(
    seg.v("合计", "2024A收入（百万元）"),
    tq["表1"].v("营业收入（百万元）", "2024A"),
    0,
    "qingyun segment total = 2024A revenue",
)
close(
    seg.v("合计", "2023A收入（百万元）"),
    tq["表1"].v("营业收入（百万元）", "2023A"),
    0,
    "qingyun segment total = 2023A revenue",
)
for p in parts + ["合计"]:
    close(
        rnd(pct(seg.v(p, "2024A收入（百万元）"), seg.v(p, "2023A收入（百万元）")), 2),
        seg.v(p, "同比（%）"),
        0,
        f"qingyun {p} 同比",
    )
    close(
        rnd(seg.v(p, "2024A收入（百万元）") / seg.v("合计", "2024A收入（百万元）") * 100, 2),
        seg.v(p, "占比（%）"),
        0,
        f"qingyun {p} 占比",
    )
wgm = sum(seg.v(p, "2024A收入（百万元）") * seg.v(p, "毛利率（%）") for p in parts) / seg.v(
    "合计", "2024A收入（百万元）"
)
close(rnd(wgm, 1), seg.v("合计", "毛利率（%）"), 0, "qingyun weighted gross margin")
close(rnd(wgm, 1), tq["表1"].v("毛利率（%）", "2024A"), 0, "qingyun gross margin vs 表1")
qt = tq["表2"]
close(
    sum(qt.v("营业收入（百万元）", f"2024Q{i}") for i in range(1, 5)),
    tq["表1"].v("营业收入（百万元）", "2024A"),
    0,
    "qingyun 2024 quarters revenue",
)
close(
    sum(qt.v("归母净利润（百万元）", f"2024Q{i}") for i in range(1, 5)),
    tq["表1"].v("归母净利润（百万元）", "2024A"),
    0,
    "qingyun 2024 quarters profit",
)
for i in range(1, 4):
    close(
        rnd(
            pct(qt.v("营业收入（百万元）", f"2025Q{i}"), qt.v("营业收入（百万元）", f"2024Q{i}")), 2
        ),
        qt.v("同比（%）", f"2025Q{i}", 1),
        0,
        f"qingyun 2025Q{i} revenue yoy",
    )
    close(
        rnd(
            pct(
                qt.v("归母净利润（百万元）", f"2025Q{i}"), qt.v("归母净利润（百万元）", f"2024Q{i}")
            ),
            2,
        ),
        qt.v("同比（%）", f"2025Q{i}", 2),
        0,
        f"qingyun 2025Q{i} profit yoy",
    )
rk = tq["表4"]
market = D(re.search(r"内销总量为([\d,.]+)万台", txt).group(1).replace(",", ""))
for r in rk.rows[1:]:
    close(rnd(num(r[2]) / market * 100, 2), num(r[4]), 0, f"qingyun ranking share {r[1]}")
check_comps(
    DOCS[0],
    tq["表5"],
    "股价（元）",
    "EPS（元）2025E",
    "EPS（元）2026E",
    "PE（倍）2025E",
    "PE（倍）2026E",
)

# tianshu
tt, txt = T[DOCS[1]]
price = D(re.search(r"收盘价：([\d.]+)元", txt).group(1))
check_forecast(
    DOCS[1],
    tt["表1"],
    "营业收入（百万元）",
    "营收增长率（%）",
    "归母净利润（百万元）",
    "净利润增长率（%）",
    "EPS（元）",
    "PE（倍）",
    price,
)
pr = tt["表2"]
for c, y in (
    ("2023A收入（百万元）", "2023A"),
    ("2024A收入（百万元）", "2024A"),
    ("2025E收入（百万元）", "2025E"),
):
    close(sum(pr.colvals(c)), tt["表1"].v("营业收入（百万元）", y), 0, f"tianshu products sum {y}")
for r in pr.rows[1:]:
    close(rnd(pct(num(r[2]), num(r[1])), 2), num(r[3]), 0, f"tianshu {r[0]} 2024 同比")
    close(rnd(pct(num(r[5]), num(r[2])), 2), num(r[6]), 0, f"tianshu {r[0]} 2025E 同比")
wgm = sum(num(r[2]) * num(r[4]) for r in pr.rows[1:]) / sum(pr.colvals("2024A收入（百万元）"))
close(rnd(wgm, 1), tt["表1"].v("毛利率（%）", "2024A"), 0, "tianshu weighted gross margin")
mk = tt["表3"]
mtot = sum(mk.colvals("刻蚀设备销售额（亿元）"))
for r in mk.rows[1:]:
    close(rnd(num(r[2]) / mtot * 100, 2), num(r[3]), 0, f"tianshu market share {r[1]}")
close(
    mk.by("公司", "天枢微装", "刻蚀设备销售额（亿元）") * 100,
    pr.v("刻蚀设备", "2024A收入（百万元）"),
    D("0.5"),
    "tianshu etch sales vs product table",
)
qt = tt["表4"]
revq = {r[0]: num(r[1]) for r in qt.rows[1:]}
npq = {r[0]: num(r[4]) for r in qt.rows[1:]}
close(
    sum(v for k, v in revq.items() if k.startswith("2024")),
    tt["表1"].v("营业收入（百万元）", "2024A"),
    0,
    "tianshu 2024 quarters revenue",
)
close(
    sum(v for k, v in npq.items() if k.startswith("2024")),
    tt["表1"].v("归母净利润（百万元）", "2024A"),
    0,
    "tianshu 2024 quarters profit",
)
ks = list(revq)
for i, k in enumerate(ks):
    if k.startswith("2025"):
        close(
            rnd(pct(revq[k], revq["2024" + k[4:]]), 2),
            num(qt.row(k)[2]),
            0,
            f"tianshu {k} revenue yoy",
        )
        close(
            rnd(pct(npq[k], npq["2024" + k[4:]]), 2),
            num(qt.row(k)[5]),
            0,
            f"tianshu {k} profit yoy",
        )
    if i > 0:
        close(
            rnd(pct(revq[k], revq[ks[i - 1]]), 2), num(qt.row(k)[3]), 0, f"tianshu {k} revenue qoq"
        )
cp = tt["表5"]
check_comps(
    DOCS[1],
    cp,
    "收盘价（元）",
    "2025E EPS（元）",
    "2026E EPS（元）",
    "2025E PE（倍）",
    "2026E PE（倍）",
)
for c in ("2025E PE（倍）", "2026E PE（倍）"):
    vals = [num(r[cp.col(c)]) for r in cp.rows[1:] if r[0] != "平均值"]
    close(rnd(sum(vals) / len(vals), 1), cp.v("平均值", c), 0, f"tianshu comps average {c}")

# haixing
th, txt = T[DOCS[2]]
price = D(re.search(r"收盘价：([\d.]+)元", txt).group(1))
check_forecast(
    DOCS[2],
    th["表7"],
    "营业收入（百万元）",
    "同比增长（%）",
    "归母净利润（百万元）",
    "同比增长（%）",
    "每股收益（元）",
    "市盈率PE（倍）",
    price,
)
mc, mr, ov = th["表2"], th["表3"], th["表1"]
months = mc.header[1:]
vol = {m: mc.v("业务量（亿票）", m) for m in months}
unit = {m: mc.v("单票收入（元）", m) for m in months}
rev = {m: mc.v("速运物流业务收入（亿元）", m) for m in months}
for m in months:
    close(rnd(vol[m] * unit[m], 2), rev[m], 0, f"haixing {m} revenue = volume x unit revenue")
    close(mr.v(m, "海星速运业务量（亿票）"), vol[m], 0, f"haixing {m} volume 表2 vs 表3")
    close(num(mr.row(m)[4]), mc.after("业务量（亿票）", m), 0, f"haixing {m} volume yoy 表2 vs 表3")
    close(
        rnd(vol[m] / mr.v(m, "全国快递业务量（亿件）") * 100, 2),
        mr.v(m, "海星速运市场份额（%）"),
        0,
        f"haixing {m} market share",
    )
    # revenue yoy consistent with volume and unit-revenue yoy
    implied = (
        (1 + mc.after("业务量（亿票）", m) / 100) * (1 + mc.after("单票收入（元）", m) / 100) - 1
    ) * 100
    close(
        implied,
        mc.after("速运物流业务收入（亿元）", m),
        D("0.05"),
        f"haixing {m} revenue yoy vs volume and price yoy",
    )
close(ov.v("速运物流业务量（亿票）", "2025年10月"), vol["10月"], 0, "haixing 表1 October volume")
close(ov.v("速运物流业务量（亿票）", "2025年9月"), vol["9月"], 0, "haixing 表1 September volume")
close(
    ov.v("速运物流单票收入（元）", "2025年9月"),
    unit["9月"],
    0,
    "haixing 表1 September unit revenue",
)
close(
    ov.v("速运物流业务量（亿票）", "2025年1-10月累计"), sum(vol.values()), 0, "haixing ytd volume"
)
close(
    ov.v("速运物流业务收入（亿元）", "2025年1-10月累计"),
    sum(rev.values()),
    0,
    "haixing ytd revenue",
)
close(
    rnd(sum(rev.values()) / sum(vol.values()), 2),
    ov.v("速运物流单票收入（元）", "2025年1-10月累计"),
    0,
    "haixing ytd unit revenue",
)
for r in ov.rows[1:]:
    v = lambda c: num(r[ov.col(c)])
    close(rnd(pct(v("2025年10月"), v("2025年9月")), 2), v("环比（%）"), 0, f"haixing {r[0]} 环比")
    close(rnd(pct(v("2025年10月"), v("2024年10月")), 2), v("同比（%）"), 0, f"haixing {r[0]} 同比")
    close(
        rnd(pct(v("2025年1-10月累计"), v("2024年1-10月累计")), 2),
        v("累计同比（%）"),
        0,
        f"haixing {r[0]} 累计同比",
    )
close(
    rnd(pct(vol["10月"], ov.v("速运物流业务量（亿票）", "2024年10月")), 2),
    mc.after("业务量（亿票）", "10月"),
    0,
    "haixing Oct yoy 表1 vs 表2",
)
rk = th["表4"]
for r in rk.rows[1:]:
    close(
        rnd(num(r[2]) / mr.v("10月", "全国快递业务量（亿件）") * 100, 2),
        num(r[4]),
        0,
        f"haixing ranking share {r[1]}",
    )
close(rk.by("公司", "海星速运", "10月业务量（亿票）"), vol["10月"], 0, "haixing ranking volume")
qt, sg, fc = th["表5"], th["表6"], th["表7"]
close(
    sum(qt.v("营业收入（百万元）", f"2024Q{i}") for i in range(1, 5)),
    fc.v("营业收入（百万元）", "2024A"),
    0,
    "haixing 2024 quarters revenue",
)
close(
    sum(qt.v("归母净利润（百万元）", f"2024Q{i}") for i in range(1, 5)),
    fc.v("归母净利润（百万元）", "2024A"),
    0,
    "haixing 2024 quarters profit",
)
for i in range(1, 4):
    close(
        rnd(
            pct(qt.v("营业收入（百万元）", f"2025Q{i}"), qt.v("营业收入（百万元）", f"2024Q{i}")), 1
        ),
        qt.v("营收同比（%）", f"2025Q{i}"),
        0,
        f"haixing 2025Q{i} revenue yoy",
    )
    close(
        rnd(
            pct(
                qt.v("归母净利润（百万元）", f"2025Q{i}"), qt.v("归母净利润（百万元）", f"2024Q{i}")
            ),
            1,
        ),
        qt.v("归母净利润同比（%）", f"2025Q{i}"),
        0,
        f"haixing 2025Q{i} profit yoy",
    )
parts = [r[0] for r in sg.rows[1:] if r[0] != "合计"]
for c in ("2024A收入（百万元）", "2025H1收入（百万元）"):
    close(sum(sg.v(p, c) for p in parts), sg.v("合计", c), 0, f"haixing segments sum {c}")
close(
    sg.v("合计", "2024A收入（百万元）"),
    fc.v("营业收入（百万元）", "2024A"),
    0,
    "haixing segment total = 2024A revenue",
)
close(
    sg.v("合计", "2025H1收入（百万元）"),
    qt.v("营业收入（百万元）", "2025Q1") + qt.v("营业收入（百万元）", "2025Q2"),
    0,
    "haixing H1 = Q1+Q2",
)
h1_24 = qt.v("营业收入（百万元）", "2024Q1") + qt.v("营业收入（百万元）", "2024Q2")
close(
    rnd(pct(sg.v("合计", "2025H1收入（百万元）"), h1_24), 2),
    sg.v("合计", "2025H1同比（%）"),
    0,
    "haixing H1 同比",
)
express = ["时效快递", "经济快递", "快运", "冷运及医药"]
close(
    sum(sg.v(p, "2025H1收入（百万元）") for p in express),
    sum(rev[m] for m in months[:6]) * 100,
    0,
    "haixing H1 express segments = Jan-Jun monthly revenue",
)
for p in parts:
    close(
        rnd(sg.v(p, "2024A收入（百万元）") / sg.v("合计", "2024A收入（百万元）") * 100, 2),
        sg.v(p, "2024A占比（%）"),
        0,
        f"haixing {p} 2024 占比",
    )
    close(
        rnd(sg.v(p, "2025H1收入（百万元）") / sg.v("合计", "2025H1收入（百万元）") * 100, 2),
        sg.v(p, "2025H1占比（%）"),
        0,
        f"haixing {p} H1 占比",
    )
check_comps(DOCS[2], th["表8"], "股价（元）", "EPS 2025E", "EPS 2026E", "PE 2025E", "PE 2026E")


# ---------------------------------------------------------------- prose against tables
def prose(doc, pattern, *expected):
    m = re.search(pattern, T[doc][1])
    if not m:
        fail(f"{doc}: prose pattern not found {pattern}")
        return
    for i, exp in enumerate(expected, 1):
        got = num(m.group(i))
        nd = len(m.group(i).split(".")[1]) if "." in m.group(i) else 0
        if rnd(exp, nd) != got:
            fail(f"{doc}: prose {m.group(0)!r} group {i}: {got} vs tables {rnd(exp, nd)}")


def pe_list(doc, t, lbl):
    prose(
        doc,
        r"PE分别为([\d.]+)倍、([\d.]+)倍、([\d.]+)倍",
        *(t.v(lbl, y) for y in ("2025E", "2026E", "2027E")),
    )


def q3sum(t, row, y):
    return sum(t.v(row, f"{y}Q{i}") for i in range(1, 4))


d, t = DOCS[0], T[DOCS[0]][0]
prose(
    d,
    r"前三季度公司实现营业收入([\d.]+)亿元，同比增长([\d.]+)%；实现归母净利润([\d.]+)亿元，同比增长([\d.]+)%",
    q3sum(t["表2"], R := "营业收入（百万元）", "2025") / 100,
    pct(q3sum(t["表2"], R, "2025"), q3sum(t["表2"], R, "2024")),
    q3sum(t["表2"], N := "归母净利润（百万元）", "2025") / 100,
    pct(q3sum(t["表2"], N, "2025"), q3sum(t["表2"], N, "2024")),
)
prose(
    d,
    r"内销量([\d,.]+)万台，同比增长([\d.]+)%.*?市场份额([\d.]+)%",
    t["表4"].by("公司", "青云电器", "内销量（万台）"),
    t["表4"].by("公司", "青云电器", "同比（%）"),
    t["表4"].by("公司", "青云电器", "市场份额（%）"),
)
prose(
    d,
    r"2025Q3公司毛利率([\d.]+)%，同比提升([\d.]+)个百分点",
    t["表2"].v("毛利率（%）", "2025Q3"),
    t["表2"].v("毛利率（%）", "2025Q3") - t["表2"].v("毛利率（%）", "2024Q3"),
)
prose(
    d,
    r"空调业务实现收入([\d.]+)亿元，占营业收入的比重为([\d.]+)%",
    t["表3"].v("空调", "2024A收入（百万元）") / 100,
    t["表3"].v("空调", "占比（%）"),
)
pe_list(d, t["表1"], "PE（倍）")
d, t = DOCS[1], T[DOCS[1]][0]
prose(
    d,
    r"2024年公司实现营业收入([\d.]+)亿元，同比增长([\d.]+)%",
    t["表1"].v(R, "2024A") / 100,
    pct(t["表1"].v(R, "2024A"), t["表1"].v(R, "2023A")),
)
revq = {r[0]: num(r[1]) for r in t["表4"].rows[1:]}
prose(
    d,
    r"前三季度公司实现营业收入([\d.]+)亿元，同比增长([\d.]+)%",
    sum(revq[f"2025Q{i}"] for i in (1, 2, 3)) / 100,
    pct(sum(revq[f"2025Q{i}"] for i in (1, 2, 3)), sum(revq[f"2024Q{i}"] for i in (1, 2, 3))),
)
prose(
    d,
    r"刻蚀设备收入([\d.]+)亿元，在中国大陆刻蚀设备市场的份额为([\d.]+)%",
    t["表3"].by("公司", "天枢微装", "刻蚀设备销售额（亿元）"),
    t["表3"].by("公司", "天枢微装", "市场份额"),
)
pe_list(d, t["表1"], "PE（倍）")
d, t = DOCS[2], T[DOCS[2]][0]
ov = t["表1"]
prose(
    d,
    r"10月公司速运物流业务量([\d.]+)亿票，同比增长([\d.]+)%；速运物流业务收入([\d.]+)亿元，同比增长([\d.]+)%；单票收入([\d.]+)元，同比下降([\d.]+)%，降幅较9月收窄([\d.]+)个百分点",
    ov.v("速运物流业务量（亿票）", "2025年10月"),
    ov.v("速运物流业务量（亿票）", "同比（%）"),
    ov.v("速运物流业务收入（亿元）", "2025年10月"),
    ov.v("速运物流业务收入（亿元）", "同比（%）"),
    ov.v("速运物流单票收入（元）", "2025年10月"),
    -ov.v("速运物流单票收入（元）", "同比（%）"),
    t["表2"].after("单票收入（元）", "10月") - t["表2"].after("单票收入（元）", "9月"),
)
prose(
    d,
    r"10月全国快递业务量([\d.]+)亿件，同比增长([\d.]+)%；公司业务量增速高于行业([\d.]+)个百分点，市场份额([\d.]+)%",
    t["表3"].v("10月", "全国快递业务量（亿件）"),
    num(t["表3"].row("10月")[2]),
    num(t["表3"].row("10月")[4]) - num(t["表3"].row("10月")[2]),
    t["表3"].v("10月", "海星速运市场份额（%）"),
)
prose(
    d,
    r"累计完成业务量([\d.]+)亿票，同比增长([\d.]+)%，累计实现速运物流业务收入([\d,.]+)亿元，同比增长([\d.]+)%",
    ov.v("速运物流业务量（亿票）", "2025年1-10月累计"),
    ov.v("速运物流业务量（亿票）", "累计同比（%）"),
    ov.v("速运物流业务收入（亿元）", "2025年1-10月累计"),
    ov.v("速运物流业务收入（亿元）", "累计同比（%）"),
)
prose(
    d,
    r"前三季度公司实现营业收入([\d,.]+)亿元，实现归母净利润([\d.]+)亿元，同比增长([\d.]+)%",
    q3sum(t["表5"], R, "2025") / 100,
    q3sum(t["表5"], N, "2025") / 100,
    pct(q3sum(t["表5"], N, "2025"), q3sum(t["表5"], N, "2024")),
)
prose(d, r"时效快递收入占比为([\d.]+)%", t["表6"].v("时效快递", "2025H1占比（%）"))
pe_list(d, t["表7"], "市盈率PE（倍）")
for d in DOCS:
    for m in re.finditer(r"([\d,.]+)%", T[d][1]):
        if num(m.group(1)) > 100:
            fail(f"{d}: implausible percentage in prose {m.group(0)}")

print(f"consistency checks done, {len(problems)} problem(s) so far")

# ---------------------------------------------------------------- probes
Q1, Q2, Q3 = (T[d][0] for d in DOCS)
R = "营业收入（百万元）"
N = "归母净利润（百万元）"
COMPUTE = {
    # qingyun
    "2024年青云电器空调业务收入比冰箱业务多多少？": (
        "difference",
        lambda: (
            Q1["表3"].v("空调", "2024A收入（百万元）") - Q1["表3"].v("冰箱", "2024A收入（百万元）")
        ),
    ),
    "按1-9月内销量算，北极星家电比鸿澜电器少卖了多少万台空调？": (
        "difference",
        lambda: (
            Q1["表4"].by("公司", "鸿澜电器", "内销量（万台）")
            - Q1["表4"].by("公司", "北极星家电", "内销量（万台）")
        ),
    ),
    "青云电器今年三季度单季营业收入环比下降了多少？": (
        "change",
        lambda: -pct(Q1["表2"].v(R, "2025Q3"), Q1["表2"].v(R, "2025Q2")),
    ),
    "2025年上半年公司一共实现营业收入多少百万元？": (
        "sum",
        lambda: Q1["表2"].v(R, "2025Q1") + Q1["表2"].v(R, "2025Q2"),
    ),
    "空调内销量排名前三的企业加起来卖了多少万台？": (
        "sum",
        lambda: sum(Q1["表4"].by("排名", k, "内销量（万台）") for k in ("1", "2", "3")),
    ),
    "表中四家可比公司2025年PE的平均值是多少倍？": (
        "average",
        lambda: sum(Q1["表5"].colvals("PE（倍）2025E")) / 4,
    ),
    "2024A到2027E，青云电器营业收入的年均复合增长率是多少？": (
        "cagr",
        lambda: cagr(Q1["表1"].v(R, "2027E"), Q1["表1"].v(R, "2024A"), 3),
    ),
    "2025年第三季度的归母净利润占公司2025年全年预测归母净利润的比例是多少？": (
        "share",
        lambda: Q1["表2"].v(N, "2025Q3") / Q1["表1"].v(N, "2025E") * 100,
    ),
    "2024年空调收入是厨卫及小家电收入的几倍？": (
        "ratio",
        lambda: (
            Q1["表3"].v("空调", "2024A收入（百万元）")
            / Q1["表3"].v("厨卫及小家电", "2024A收入（百万元）")
        ),
    ),
    "2024Q1至2025Q3这七个季度中，单季毛利率超过26%的有几个季度？": (
        "count",
        lambda: D(sum(1 for c in Q1["表2"].header[1:] if Q1["表2"].v("毛利率（%）", c) > 26)),
    ),
    "青云电器2026年预测EPS是多少元？": ("lookup", lambda: Q1["表1"].s("EPS（元/股）", "2026E")),
    "2024年洗衣机业务的毛利率是多少？": ("lookup", lambda: Q1["表3"].s("洗衣机", "毛利率（%）")),
    "2024年第四季度公司归母净利润是多少百万元？": ("lookup", lambda: Q1["表2"].s(N, "2024Q4")),
    "可比公司里松川电器的总市值是多少亿元？": (
        "lookup",
        lambda: Q1["表5"].s("松川电器", "总市值（亿元）"),
    ),
    # tianshu
    "天枢微装2025E的PE比可比公司平均值低了多少？": (
        "difference",
        lambda: Q2["表5"].v("平均值", "2025E PE（倍）") - Q2["表1"].v("PE（倍）", "2025E"),
    ),
    "2025年三季度归母净利润环比增长了多少？": (
        "change",
        lambda: pct(num(Q2["表4"].row("2025Q3")[4]), num(Q2["表4"].row("2025Q2")[4])),
    ),
    "按预测，薄膜沉积设备2025年收入较2023年增长了百分之几？": (
        "change",
        lambda: pct(
            Q2["表2"].v("薄膜沉积设备", "2025E收入（百万元）"),
            Q2["表2"].v("薄膜沉积设备", "2023A收入（百万元）"),
        ),
    ),
    "国产厂商天枢微装和北辰华创2024年在大陆刻蚀设备市场的销售额合计是多少亿元？": (
        "sum",
        lambda: (
            Q2["表3"].by("公司", "天枢微装", "刻蚀设备销售额（亿元）")
            + Q2["表3"].by("公司", "北辰华创", "刻蚀设备销售额（亿元）")
        ),
    ),
    "今年前三个季度，公司单季毛利率的平均值是多少？": (
        "average",
        lambda: sum(Q2["表4"].v(k, "毛利率（%）") for k in ("2025Q1", "2025Q2", "2025Q3")) / 3,
    ),
    "刻蚀设备2024年收入是清洗设备的几倍？": (
        "ratio",
        lambda: (
            Q2["表2"].v("刻蚀设备", "2024A收入（百万元）")
            / Q2["表2"].v("清洗设备", "2024A收入（百万元）")
        ),
    ),
    "预计2027年天枢微装的归母净利润是2024年的几倍？": (
        "ratio",
        lambda: Q2["表1"].v(N, "2027E") / Q2["表1"].v(N, "2024A"),
    ),
    "2024年薄膜沉积设备收入占公司当年营业收入的比重是多少？": (
        "share",
        lambda: Q2["表2"].v("薄膜沉积设备", "2024A收入（百万元）") / Q2["表1"].v(R, "2024A") * 100,
    ),
    "天枢微装2024-2027年归母净利润的CAGR是多少？": (
        "cagr",
        lambda: cagr(Q2["表1"].v(N, "2027E"), Q2["表1"].v(N, "2024A"), 3),
    ),
    "可比公司中2025E PE高于60倍的有几家？": (
        "count",
        lambda: D(
            sum(
                1
                for r in Q2["表5"].rows[1:]
                if r[0] != "平均值" and num(r[Q2["表5"].col("2025E PE（倍）")]) > 60
            )
        ),
    ),
    "天枢微装2024年二季度毛利率是多少？": ("lookup", lambda: Q2["表4"].s("2024Q2", "毛利率（%）")),
    "北辰华创2026年的EPS预测是多少元？": (
        "lookup",
        lambda: Q2["表5"].s("北辰华创", "2026E EPS（元）"),
    ),
    "朗拓科技在中国大陆刻蚀设备市场的份额是多少？": (
        "lookup",
        lambda: Q2["表3"].sby("公司", "朗拓科技（海外）", "市场份额"),
    ),
    "2025年清洗设备收入预测为多少百万元？": (
        "lookup",
        lambda: Q2["表2"].s("清洗设备", "2025E收入（百万元）"),
    ),
    # haixing
    "今年以来（1-10月）海星速运累计业务量比去年同期多了多少亿票？": (
        "difference",
        lambda: (
            Q3["表1"].v("速运物流业务量（亿票）", "2025年1-10月累计")
            - Q3["表1"].v("速运物流业务量（亿票）", "2024年1-10月累计")
        ),
    ),
    "8月单票收入环比下降了多少？": (
        "change",
        lambda: -pct(Q3["表2"].v("单票收入（元）", "8月"), Q3["表2"].v("单票收入（元）", "7月")),
    ),
    "三季度7到9月海星一共完成了多少亿票业务量？": (
        "sum",
        lambda: sum(Q3["表2"].v("业务量（亿票）", m) for m in ("7月", "8月", "9月")),
    ),
    "7-10月公司平均每月的速运物流业务量是多少亿票？": (
        "average",
        lambda: (
            sum(Q3["表3"].v(m, "海星速运业务量（亿票）") for m in ("7月", "8月", "9月", "10月")) / 4
        ),
    ),
    "公司2025-2027年预测毛利率的均值是多少？": (
        "average",
        lambda: sum(Q3["表7"].v("毛利率（%）", y) for y in ("2025E", "2026E", "2027E")) / 3,
    ),
    "10月远航快递的业务量是海星速运的几倍？": (
        "ratio",
        lambda: (
            Q3["表4"].by("公司", "远航快递", "10月业务量（亿票）")
            / Q3["表4"].by("公司", "海星速运", "10月业务量（亿票）")
        ),
    ),
    "10月海星速运业务量占业务量排名前五的快递公司合计的比例是多少？": (
        "share",
        lambda: (
            Q3["表4"].by("公司", "海星速运", "10月业务量（亿票）")
            / sum(Q3["表4"].colvals("10月业务量（亿票）"))
            * 100
        ),
    ),
    "2025年三季度单季归母净利润占当季营业收入的百分之几？": (
        "share",
        lambda: Q3["表5"].v(N, "2025Q3") / Q3["表5"].v(R, "2025Q3") * 100,
    ),
    "以2023年为基期，到2026年海星速运营业收入的年均复合增速是多少？": (
        "cagr",
        lambda: cagr(Q3["表7"].v(R, "2026E"), Q3["表7"].v(R, "2023A"), 3),
    ),
    "1-10月里，业务量同比增速超过15%的月份有几个？": (
        "count",
        lambda: D(
            sum(1 for m in Q3["表2"].header[1:] if Q3["表2"].after("业务量（亿票）", m) > 15)
        ),
    ),
    "9月全国快递业务量是多少亿件？": (
        "lookup",
        lambda: Q3["表3"].s("9月", "全国快递业务量（亿件）"),
    ),
    "去年10月公司的单票收入是多少元？": (
        "lookup",
        lambda: Q3["表1"].s("速运物流单票收入（元）", "2024年10月"),
    ),
    "2024年时效快递业务收入是多少百万元？": (
        "lookup",
        lambda: Q3["表6"].s("时效快递", "2024A收入（百万元）"),
    ),
    "海星速运2026年预测每股收益是多少元？": (
        "lookup",
        lambda: Q3["表7"].s("每股收益（元）", "2026E"),
    ),
}

kinds, per_doc = Counter(), Counter()
n_ok = 0
with open(HERE / "probes_broker.tsv", encoding="utf-8") as fh:
    lines = [l for l in csv.reader(fh, delimiter="\t")]
for ln in lines:
    if len(ln) != 4:
        fail(f"bad line {ln}")
        continue
    doc, question, gold, note = ln
    if doc not in DOCS:
        fail(f"unknown doc {doc}")
        continue
    if question not in COMPUTE:
        fail(f"no recomputation for {question}")
        continue
    kind, fn = COMPUTE[question]
    kinds[kind] += 1
    per_doc[(doc, "lookup" if kind == "lookup" else "arith")] += 1
    if (kind == "lookup") != (note == "lookup"):
        fail(f"{question}: kind {kind} but 4th column {note!r}")
    if kind == "lookup":
        cell = fn()
        ok = num(cell) == D(gold) and cell.replace(",", "").replace("%", "") == gold
        got = cell
    else:
        nd = len(gold.split(".")[1]) if "." in gold else 0
        got = str(rnd(fn(), nd))
        ok = got == gold
    if ok:
        n_ok += 1
    else:
        fail(f"{doc} | {question} | gold {gold} | recomputed {got}")

print(f"probes: {len(lines)} lines, {n_ok} match")
for d in DOCS:
    print(f"  {d}: {per_doc[(d, 'arith')]} arithmetic, {per_doc[(d, 'lookup')]} lookup")
print(
    "  by kind: "
    + ", ".join(
        f"{k} {kinds[k]}"
        for k in (
            "difference",
            "change",
            "sum",
            "average",
            "ratio",
            "share",
            "cagr",
            "count",
            "lookup",
        )
    )
)
print("OK" if not problems else f"{len(problems)} PROBLEM(S)")
sys.exit(1 if problems else 0)
