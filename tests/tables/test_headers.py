"""Column header paths from word boxes of real born-digital header blocks.

Each fixture is the text-layer words of a real page's header block (boxes in pixels at
the page's render, as the warehouse stores them) and its value columns (the figures'
boxes); the expected paths were read on the page image.
"""

from __future__ import annotations

from pipeline.tables.headers import Column, column_heads
from pipeline.tables.labels import clean_header_path
from pipeline.tables.lines import Chunk, Line, chunk_line


def _lines(words: list[tuple], height: float) -> list[Line]:
    """Words (text, x0, y0, x1, y1) grouped into lines by their top, chunked as the
    line reader chunks them."""
    rows: dict[int, list[Chunk]] = {}
    for text, x0, y0, x1, y1 in words:
        key = next((k for k in rows if abs(k - y0) < 0.5 * height), round(y0))
        rows.setdefault(key, []).append(Chunk(text, x0, y0, x1, y1, 96.0, 1))
    out = []
    for n, key in enumerate(sorted(rows)):
        tokens = sorted(rows[key], key=lambda c: c.x0)
        out.append(Line("d", 1, n, chunk_line(tokens, height)))
    return out


def _columns(boxes: list[tuple[float, float]]) -> list[Column]:
    return [Column(x0, x1, x1) for x0, x1 in boxes]


def _paths(words, boxes, height, pitch):
    heads = column_heads(_lines(words, height), _columns(boxes), height, pitch)
    return [clean_header_path(p) for p in heads.paths], heads.doubt


# 2016-09 p47, TABLE OFS-2 (Estimated Ownership of U.S. Treasury Securities): "Pension
# funds" over "Private" and "State and local governments" only, a rule under it; the
# footnote marks "1", "2,3", "4,5", "6", "7" are superscripts set between the heads.
OFS2_WORDS = [
    ("Pension", 1299, 442, 1398, 480), ("funds", 1406, 442, 1473, 480),
    ("3", 1480, 445, 1490, 469),
    ("SOMA", 628, 485, 709, 523), ("and", 717, 485, 762, 523),
    ("State", 1860, 485, 1924, 523), ("and", 1932, 485, 1978, 523),
    ("Total", 497, 523, 557, 561), ("Intragovern-", 622, 523, 769, 561),
    ("Total", 831, 523, 891, 561), ("U.S.", 1152, 523, 1205, 561),
    ("State", 1411, 523, 1474, 561), ("and", 1482, 523, 1528, 561),
    ("Insurance", 1569, 523, 1689, 561), ("local", 1891, 523, 1947, 561),
    ("Foreign", 2018, 523, 2110, 561),
    ("public", 492, 560, 563, 598), ("mental", 655, 560, 737, 598),
    ("privately", 810, 560, 912, 598), ("Depository", 960, 560, 1091, 598),
    ("savings", 1132, 560, 1225, 598), ("local", 1441, 560, 1497, 598),
    ("compa-", 1584, 560, 1675, 598), ("Mutual", 1738, 560, 1820, 598),
    ("govern-", 1873, 560, 1965, 598), ("and", 2010, 560, 2055, 598),
    ("inter-", 2063, 560, 2125, 598), ("Other", 2197, 560, 2265, 598),
    ("debt", 492, 598, 545, 636), ("1", 553, 601, 562, 625),
    ("Holdings", 627, 598, 733, 636), ("2,3", 741, 601, 764, 625),
    ("held", 835, 598, 887, 636), ("institutions", 945, 598, 1074, 636),
    ("4,", 1082, 601, 1096, 625), ("5", 1101, 601, 1110, 625),
    ("bonds", 1133, 598, 1208, 636), ("6", 1215, 601, 1225, 625),
    ("Private", 1270, 598, 1355, 636), ("7", 1363, 601, 1372, 625),
    ("governments", 1390, 598, 1548, 636), ("nies", 1599, 598, 1649, 636),
    ("4", 1657, 601, 1666, 625), ("funds", 1728, 598, 1795, 636),
    ("4,", 1802, 601, 1816, 625), ("8", 1821, 601, 1831, 625),
    ("ments", 1873, 598, 1948, 636), ("4", 1955, 601, 1965, 625),
    ("national", 2018, 598, 2114, 636), ("9", 2121, 601, 2130, 625),
    ("investors", 2174, 598, 2284, 636), ("10", 2291, 601, 2310, 625),
]  # fmt: skip
OFS2_COLS = [
    (475, 582), (649, 740), (807, 913), (992, 1061), (1143, 1211), (1293, 1361),
    (1443, 1511), (1593, 1661), (1721, 1812), (1893, 1962), (2022, 2113), (2186, 2277),
]  # fmt: skip


def test_footnote_superscripts_split_heads_and_a_lone_spanner_keeps_to_its_columns() -> None:
    """2016-09 p47: "institutions 4,5 bonds 6" is two heads; "Pension funds" stands over
    "Private" and "State and local governments"; whether it also stands over their
    neighbours only the rule under it shows (a spanner is often narrower than its run),
    so every column it may or may not stand over is marked uncertain."""
    paths, doubt = _paths(OFS2_WORDS, OFS2_COLS, 38.1, 41.1)
    printed = [
        "Total public debt",
        "SOMA and Intragovernmental Holdings",
        "Total privately held",
        "Depository institutions",
        "U.S. savings bonds",
        "Pension funds / Private",
        "Pension funds / State and local governments",
        "Insurance companies",
        "Mutual funds",
        "State and local governments",
        "Foreign and international",
        "Other investors",
    ]
    assert paths[5:7] == printed[5:7] and not doubt[5] and not doubt[6]
    for c, path in enumerate(paths):
        assert path.split(" / ")[-1] == printed[c].split(" / ")[-1]
        assert path == printed[c] or doubt[c], (c, path)


# 1997-09 p45 (Allotments by investor classes): words of neighbouring heads sit closer
# than a gutter: "Corpo-" | "tirement", "Other" | "dealers and".
ALLOT_WORDS = [
    ("Allotments", 1426, 521, 1551, 554), ("by", 1559, 521, 1587, 554),
    ("investor", 1595, 521, 1689, 554), ("classes", 1697, 521, 1786, 554),
    ("State", 1894, 563, 1957, 596), ("and", 1965, 563, 2010, 596),
    ("local", 2017, 563, 2073, 596),
    ("Private", 1729, 605, 1813, 638), ("governments", 1910, 605, 2066, 638),
    ("4", 2073, 606, 2081, 623),
    ("Insur-", 1387, 647, 1456, 680), ("pension", 1724, 647, 1818, 680),
    ("Pension", 1856, 647, 1953, 680),
    ("Total", 858, 688, 918, 721), ("Federal", 1009, 688, 1100, 721),
    ("Com-", 1151, 688, 1217, 721), ("ance", 1392, 688, 1451, 721),
    ("Mutual", 1493, 688, 1575, 721), ("and", 1729, 688, 1774, 721),
    ("re-", 1781, 688, 1814, 721), ("and", 1862, 688, 1907, 721),
    ("re-", 1915, 688, 1948, 721), ("Nonbank", 2101, 688, 2209, 721),
    ("amount", 843, 730, 933, 763), ("Reserve", 1005, 730, 1105, 763),
    ("mercial", 1140, 730, 1228, 763), ("Indi-", 1283, 730, 1335, 763),
    ("com-", 1392, 730, 1452, 763), ("savings", 1489, 730, 1580, 763),
    ("Corpo-", 1614, 730, 1697, 763), ("tirement", 1723, 730, 1821, 763),
    ("tirement", 1857, 730, 1955, 763), ("Other", 2005, 730, 2073, 763),
    ("dealers", 2086, 730, 2174, 763), ("and", 2182, 730, 2227, 763),
    ("All", 2275, 730, 2305, 763),
    ("issued", 849, 772, 927, 805), ("banks", 1019, 772, 1091, 805),
    ("banks", 1142, 772, 1214, 805), ("1", 1218, 773, 1226, 790),
    ("viduals", 1261, 772, 1345, 805), ("2", 1349, 773, 1357, 790),
    ("panies", 1382, 772, 1461, 805), ("banks", 1498, 772, 1570, 805),
    ("rations", 1609, 772, 1690, 805), ("3", 1694, 773, 1702, 790),
    ("funds", 1739, 772, 1805, 805), ("funds", 1872, 772, 1938, 805),
    ("funds", 2006, 772, 2072, 805), ("brokers", 2110, 772, 2200, 805),
    ("other", 2259, 772, 2321, 805), ("5", 2328, 773, 2336, 790),
]  # fmt: skip
ALLOT_COLS = [
    (846, 929), (1011, 1079), (1146, 1214), (1266, 1334), (1394, 1439), (1514, 1544),
    (1627, 1694), (1754, 1785), (1874, 1920), (2009, 2054), (2106, 2188), (2241, 2308),
]  # fmt: skip


def test_no_phrase_runs_across_a_gutter_or_past_a_hyphen_break() -> None:
    """1997-09 p45: "Corpo-" ends its column's line ("rations" follows below), and
    "Other" / "dealers and" stand over two columns whose heads go on below."""
    paths, _ = _paths(ALLOT_WORDS, ALLOT_COLS, 33.0, 57.5)
    assert paths[6].endswith("Corporations")
    assert paths[7].endswith("Private pension and retirement funds")
    assert paths[9].endswith("Other funds")
    assert paths[10].endswith("Nonbank dealers and brokers")
    assert paths[3].endswith("Individuals") and paths[4].endswith("Insurance companies")


# 2006-12 p92, TABLE CM-IV-3: "2006" over the two 2006 columns of each security, nested
# under the security's spanner; "r" / "p" revision marks after the dates.
CM_WORDS = [
    ("Marketable", 658, 531, 785, 567), ("Treasury", 792, 531, 893, 567),
    ("U.S.", 1053, 531, 1103, 567), ("Government", 1111, 531, 1252, 567),
    ("corporations", 1259, 531, 1400, 567),
    ("bonds", 681, 567, 751, 603), ("and", 758, 567, 801, 603), ("notes", 808, 567, 871, 603),
    ("and", 1075, 567, 1118, 603), ("Federal", 1125, 567, 1212, 603),
    ("agency", 1219, 567, 1302, 603), ("bonds", 1309, 567, 1379, 603),
    ("Corporate", 1567, 567, 1681, 603), ("bonds", 1688, 567, 1758, 603),
    ("Corporate", 2000, 567, 2114, 603), ("stocks", 2121, 567, 2193, 603),
    ("2006", 851, 609, 908, 645), ("2006", 1264, 609, 1321, 645),
    ("2006", 1714, 609, 1771, 645), ("2006", 2163, 609, 2220, 645),
    ("Calendar", 607, 647, 711, 683), ("Jan.", 780, 647, 829, 682),
    ("July", 917, 647, 962, 682), ("Calendar", 1034, 647, 1138, 683),
    ("Jan.", 1207, 647, 1256, 682), ("July.", 1325, 647, 1378, 682),
    ("Calendar", 1473, 647, 1577, 683), ("Jan.", 1647, 647, 1695, 682),
    ("July", 1787, 647, 1832, 682), ("Calendar", 1906, 647, 2010, 683),
    ("Jan.", 2081, 647, 2129, 682), ("July", 2215, 647, 2260, 682),
    ("year", 634, 683, 684, 718), ("through", 761, 683, 848, 718),
    ("through", 907, 683, 994, 718), ("year", 1061, 683, 1111, 718),
    ("through", 1184, 683, 1272, 718), ("through", 1311, 683, 1398, 718),
    ("year", 1500, 683, 1550, 718), ("through", 1631, 683, 1718, 718),
    ("through", 1766, 683, 1853, 718), ("year", 1933, 683, 1983, 718),
    ("through", 2061, 683, 2148, 718), ("through", 2194, 683, 2281, 718),
    ("2005", 622, 719, 680, 754), ("r", 687, 719, 695, 754),
    ("Sept.", 775, 719, 835, 754), ("Sept.", 906, 719, 970, 754), ("p", 978, 719, 987, 754),
    ("2005", 1050, 719, 1108, 754), ("r", 1114, 719, 1122, 754),
    ("Sept.", 1202, 719, 1261, 754), ("Sept.", 1311, 719, 1375, 754), ("p", 1390, 719, 1399, 754),
    ("2005", 1489, 719, 1547, 754), ("r", 1554, 719, 1562, 754),
    ("Sept.", 1637, 719, 1697, 754), ("Sept.", 1765, 719, 1829, 754), ("p", 1837, 719, 1846, 754),
    ("2005", 1922, 719, 1980, 754), ("r", 1986, 719, 1994, 754),
    ("Sept.", 2075, 719, 2135, 754), ("Sept.", 2197, 719, 2261, 754), ("p", 2269, 719, 2278, 754),
]  # fmt: skip
CM_COLS = [
    (587, 686), (738, 831), (890, 977), (1038, 1123), (1184, 1268), (1329, 1414),
    (1460, 1559), (1605, 1704), (1766, 1850), (1911, 1995), (2062, 2146), (2182, 2266),
]  # fmt: skip


def test_nested_spanners_and_revision_marks() -> None:
    """2006-12 p92: each "2006" stands over the two 2006 columns under its security,
    not over the "Calendar year 2005" column beside them; "r" and "p" are marks."""
    paths, doubt = _paths(CM_WORDS, CM_COLS, 38.1, 38.2)
    for k, security in enumerate(
        [
            "Marketable Treasury bonds and notes",
            "U.S. Government corporations and Federal agency bonds",
            "Corporate bonds",
            "Corporate stocks",
        ]
    ):
        assert paths[3 * k] == f"{security} / Calendar year 2005"
        assert paths[3 * k + 1] == f"{security} / 2006 / Jan. through Sept."
        assert paths[3 * k + 2].startswith(f"{security} / 2006 / July")
        assert paths[3 * k + 2].endswith("through Sept.")
    assert not any(doubt)


# 2016-09 p23 (receipts by fund group): two period spanners side by side, each centred
# over its four columns but as wide as two of them.
FUNDS_WORDS = [
    ("This", 1091, 530, 1143, 568), ("fiscal", 1150, 530, 1213, 568),
    ("year", 1220, 530, 1273, 568), ("to", 1281, 530, 1304, 568), ("date", 1311, 530, 1365, 568),
    ("Prior", 1819, 530, 1877, 568), ("fiscal", 1885, 530, 1947, 568),
    ("year", 1954, 530, 2008, 568), ("to", 2015, 530, 2038, 568), ("date", 2045, 530, 2099, 568),
    ("Management,", 1053, 573, 1220, 611), ("Management,", 1777, 573, 1945, 611),
    ("consolidated,", 1056, 611, 1217, 649), ("consolidated,", 1780, 611, 1942, 649),
    ("General", 905, 649, 1002, 688), ("revolving", 1055, 649, 1165, 688),
    ("and", 1172, 649, 1218, 688), ("Trust", 1277, 649, 1339, 688),
    ("Total", 1471, 649, 1532, 688), ("General", 1640, 649, 1738, 688),
    ("revolving", 1780, 649, 1889, 688), ("and", 1897, 649, 1942, 688),
    ("Trust", 2008, 649, 2070, 688), ("Total", 2211, 649, 2272, 688),
    ("funds", 920, 688, 987, 726), ("special", 1057, 688, 1142, 726),
    ("funds", 1150, 688, 1217, 726), ("funds", 1274, 688, 1341, 726),
    ("funds", 1468, 688, 1535, 726), ("funds", 1656, 688, 1723, 726),
    ("special", 1781, 688, 1866, 726), ("funds", 1874, 688, 1941, 726),
    ("funds", 2006, 688, 2073, 726), ("funds", 2208, 688, 2275, 726),
]  # fmt: skip
FUNDS_COLS = [
    (891, 1013), (1098, 1181), (1242, 1350), (1435, 1557),
    (1622, 1744), (1820, 1913), (1973, 2082), (2166, 2288),
]  # fmt: skip


def test_spanners_side_by_side_group_the_columns_between_them() -> None:
    """2016-09 p23: "This fiscal year to date" and "Prior fiscal year to date" each
    stand over four columns (General, Management..., Trust, Total funds)."""
    paths, _ = _paths(FUNDS_WORDS, FUNDS_COLS, 38.1, 34.4)
    heads = [
        "General funds",
        "Management, consolidated, revolving and special funds",
        "Trust funds",
        "Total funds",
    ]
    assert paths == [f"This fiscal year to date / {h}" for h in heads] + [
        f"Prior fiscal year to date / {h}" for h in heads
    ]


# 2022-09 p29, TABLE FD-1: "Amount outstanding", "Government accounts" and "The public"
# are spanners as wide as one head each, over three columns; on the words alone they
# read as the top lines of the middle columns' heads.
FD1_WORDS = [
    ("Securities", 1650, 460, 1770, 498), ("held", 1778, 460, 1830, 498),
    ("by", 1837, 460, 1866, 498),
    ("Amount", 748, 500, 842, 538), ("outstanding", 849, 500, 991, 538),
    ("Government", 1343, 500, 1494, 538), ("accounts", 1501, 500, 1611, 538),
    ("The", 1982, 500, 2030, 538), ("public", 2037, 500, 2109, 538),
    ("Public", 813, 545, 888, 583), ("debt", 895, 545, 948, 583),
    ("Agency", 1041, 545, 1133, 583), ("Public", 1404, 545, 1479, 583),
    ("debt", 1486, 545, 1540, 583), ("Agency", 1604, 545, 1696, 583),
    ("Public", 1991, 545, 2065, 583), ("debt", 2073, 545, 2126, 583),
    ("Agency", 2208, 544, 2300, 583),
    ("Total", 633, 583, 693, 621), ("securities", 823, 583, 938, 621),
    ("securities", 1029, 583, 1144, 621), ("Total", 1249, 583, 1310, 621),
    ("securities", 1414, 583, 1529, 621), ("securities", 1592, 583, 1708, 621),
    ("Total", 1811, 583, 1872, 621), ("securities", 2000, 583, 2116, 621),
    ("securities", 2196, 583, 2312, 621),
]  # fmt: skip
FD1_COLS = [
    (591, 728), (814, 951), (1047, 1130), (1215, 1336), (1423, 1545),
    (1667, 1682), (1752, 1889), (1979, 2116), (2216, 2300),
]  # fmt: skip


def test_a_head_line_wider_than_its_column_marks_the_columns_it_may_span() -> None:
    """2022-09 p29: a path that may have lost or misplaced its spanner is uncertain in
    every column the spanner may stand over, so no question names them by it."""
    paths, doubt = _paths(FD1_WORDS, FD1_COLS, 38.1, 44.2)
    for c in range(9):
        ok = paths[c] in (
            "Amount outstanding / Total",
            "Amount outstanding / Public debt securities",
            "Amount outstanding / Agency securities",
        ) or paths[c].startswith(("Securities held by / Government accounts / ",
                                  "Securities held by / The public / "))  # fmt: skip
        assert ok or doubt[c], (c, paths[c])
