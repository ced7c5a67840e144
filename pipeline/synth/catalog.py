"""What the generated bulletins print: statement templates, units, long and hyphenated
labels, footnote marks and the layout recipes taken from real bulletins.

Part of :mod:`pipeline.synth.statements`.
"""

from __future__ import annotations

from dataclasses import dataclass

MONTHS = (
    "Jan.",
    "Feb.",
    "Mar.",
    "Apr.",
    "May",
    "June",
    "July",
    "Aug.",
    "Sept.",
    "Oct.",
    "Nov.",
    "Dec.",
)
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
QUARTERS = ("Jan.-Mar.", "Apr.-June", "July-Sept.", "Oct.-Dec.")

# Digit pairs OCR confuses; a misprint must never look like one of these misreads.
OCR_CONFUSABLE = frozenset(
    frozenset(p) for p in [("8", "6"), ("8", "9"), ("3", "8"), ("1", "7"), ("5", "6"), ("0", "8")]
)


@dataclass(frozen=True)
class Template:
    """Categories of one kind of statement: groups of members with a subtotal, and singles."""

    title: str
    stub_head: str
    groups: tuple[tuple[str, tuple[str, ...], str], ...]  # (group name, members, subtotal label)
    singles: tuple[str, ...]
    deductions: tuple[str, ...] = ()  # singles printed as negative amounts
    signed: bool = False  # every figure may take either sign (net changes)
    total_label: str = "Total"
    stock: bool = False  # positions on dates (outstanding, balances), not flows over periods
    dims: tuple[str, str] = ("Gross", "Net")  # value columns per period in the "dims" layout


TEMPLATES: tuple[Template, ...] = (
    Template(
        "Budget Receipts by Source",
        "Source",
        (
            (
                "Internal revenue",
                (
                    "Individual income tax",
                    "Corporation income tax",
                    "Employment taxes",
                    "Excise taxes",
                    "Estate and gift taxes",
                ),
                "Total internal revenue",
            ),
        ),
        ("Customs", "Miscellaneous receipts"),
        ("Less: Refunds of receipts",),
        total_label="Total receipts",
    ),
    Template(
        "Budget Expenditures by Function",
        "Function",
        (
            (
                "National defense",
                ("Military services", "Atomic energy", "Stockpiling"),
                "Total national defense",
            ),
        ),
        ("International affairs", "Veterans' services", "Interest", "Agriculture", "Other"),
        total_label="Total expenditures",
        dims=("Obligations", "Expenditures"),
    ),
    Template(
        "Public Debt Outstanding by Type of Security",
        "Type of security",
        (
            (
                "Marketable",
                ("Treasury bills", "Certificates", "Treasury notes", "Treasury bonds"),
                "Total marketable",
            ),
            (
                "Nonmarketable",
                ("Savings bonds", "Depositary bonds", "Special issues"),
                "Total nonmarketable",
            ),
        ),
        ("Noninterest-bearing",),
        total_label="Total gross debt",
        stock=True,
    ),
    Template(
        "Net Change in Public Debt by Type",
        "Type of security",
        (),
        ("Bills", "Certificates", "Notes", "Bonds", "Savings bonds", "Special issues"),
        signed=True,
        total_label="Net change",
        dims=("Issues", "Retirements"),
    ),
    Template(
        "Trust Account Receipts",
        "Account",
        (
            (
                "Social security",
                ("Old-age insurance", "Unemployment trust", "Railroad retirement"),
                "Total social security",
            ),
        ),
        ("Civil service retirement", "Veterans' life insurance", "Other trust accounts"),
        total_label="Total receipts",
        dims=("Receipts", "Investments"),
    ),
    Template(
        "Internal Revenue Collections by Principal Sources",
        "Source",
        (
            ("Income taxes", ("Withheld", "Not withheld", "Corporation"), "Total income taxes"),
            ("Excise taxes", ("Alcohol", "Tobacco", "Manufacturers'"), "Total excise taxes"),
        ),
        ("Estate and gift", "Other"),
        total_label="Total collections",
    ),
    Template(
        "Sales and Redemptions of Savings Bonds",
        "Transaction",
        (("Sales", ("Series E", "Series F", "Series G"), "Total sales"),),
        ("Accrued discount",),
        ("Less: Redemptions",),
        total_label="Net amount outstanding",
        dims=("Issue price", "Redemption value"),
    ),
    Template(
        "Customs Collections by District",
        "District",
        (),
        (
            "New York",
            "Boston",
            "Philadelphia",
            "Baltimore",
            "New Orleans",
            "San Francisco",
            "Chicago",
        ),
        total_label="Total",
        dims=("Duties", "Refunds"),
    ),
    Template(
        "Treasury Cash Balances by Account",
        "Account",
        (),
        ("Federal Reserve Banks", "Tax and loan accounts", "Other depositaries", "Gold", "Coin"),
        total_label="Total balance",
        stock=True,
    ),
    Template(
        "Interest on the Public Debt",
        "Class of debt",
        (("Public issues", ("Marketable", "Nonmarketable"), "Total public issues"),),
        ("Special issues", "Other"),
        total_label="Total interest",
        dims=("Accrued", "Paid"),
    ),
)

# A securities statement: rows are bond issues named by coupon and maturity years
# ("2-3/4% bonds of 1960-65"); its years are maturities, not periods.
SECURITIES = Template(
    "Treasury Bonds Outstanding by Issue",
    "Issue",
    (),
    (
        "2% bonds of 1951-53",
        "2-1/4% bonds of 1952-55",
        "2-1/2% bonds of 1956-58",
        "2-3/4% bonds of 1960-65",
        "2-1/2% bonds of 1962-67",
        "2-1/2% bonds of 1967-72",
        "3% bonds of 1995",
    ),
    total_label="Total Treasury bonds",
    stock=True,
)
SECURITY_COLUMNS = (("Held by", "Commercial banks"), ("Held by", "Other investors"))

TITLE_QUALIFIERS = (
    "",
    ", Summary",
    ", Detail",
    ", Adjusted Basis",
    ", Cash Basis",
    ", Monthly Statement",
    ", Federal Funds",
    ", Trust Funds",
)

UNITS = (
    # (unit line as printed, multiplier, decimals)
    ("(In thousands of dollars)", 1_000, 0),
    ("In thousands of dollars", 1_000, 0),
    ("(In millions of dollars)", 1_000_000, 0),
    ("In millions of dollars", 1_000_000, 1),
    ("(In millions of dollars)", 1_000_000, 1),
    ("(In billions of dollars)", 1_000_000_000, 1),
)
UNIT_WORDS = {
    1_000: "thousands of dollars",
    1_000_000: "millions of dollars",
    1_000_000_000: "billions of dollars",
}

# Long stub labels of the "wrapped" layout (printed over two lines, figures on the last).
LONG_LABELS = {
    "Individual income tax": "Individual income tax withheld by employers and not withheld",
    "Corporation income tax": "Corporation income and excess profits taxes",
    "Employment taxes": "Employment taxes for old-age and survivors insurance",
    "Excise taxes": "Excise taxes on manufacturers and retailers",
    "Estate and gift taxes": "Estate and gift taxes including transfers in trust",
    "Customs": "Customs duties collected at ports of entry",
    "Miscellaneous receipts": "Miscellaneous receipts of departments and agencies",
    "Military services": "Military services including military assistance",
    "Atomic energy": "Atomic energy development and production",
    "Stockpiling": "Stockpiling of strategic and critical materials",
    "International affairs": "International affairs and foreign economic assistance",
    "Veterans' services": "Veterans' services and benefits including readjustment",
    "Agriculture": "Agriculture and agricultural resources",
    "Old-age insurance": "Federal old-age and survivors insurance trust fund",
    "Unemployment trust": "Unemployment trust fund deposits by States",
    "Railroad retirement": "Railroad retirement account appropriations",
    "Civil service retirement": "Civil service retirement and disability fund",
    "Veterans' life insurance": "National service life insurance and Government life insurance",
    "Withheld": "Individual income tax withheld by employers",
    "Not withheld": "Individual income tax not withheld at the source",
    "Corporation": "Corporation income and excess profits taxes",
    "Alcohol": "Alcohol taxes on distilled spirits and fermented malt liquors",
    "Tobacco": "Tobacco taxes on cigarettes and cigars",
    "Manufacturers'": "Manufacturers' excise taxes on automobiles and gasoline",
    "Estate and gift": "Estate and gift taxes on transfers",
    "Series E": "Series E savings bonds sold to individuals",
    "Series F": "Series F savings bonds at issue price",
    "Series G": "Series G current income bonds at par",
    "Accrued discount": "Accrued discount on outstanding bonds",
    "Marketable": "Marketable issues including bills and certificates",
    "Nonmarketable": "Nonmarketable issues including savings bonds",
    "Special issues": "Special issues to Government trust funds",
}
# Where a word may be broken at a line end ("em-" / "ployers").
HYPHENATION = {
    w.replace("-", ""): w
    for w in (
        "em-ployers",
        "prof-its",
        "sur-vivors",
        "manufac-turers",
        "trans-fers",
        "depart-ments",
        "mili-tary",
        "pro-duction",
        "mate-rials",
        "eco-nomic",
        "assis-tance",
        "read-justment",
        "agri-cultural",
        "in-surance",
        "depos-its",
        "appro-priations",
        "dis-ability",
        "Govern-ment",
        "with-held",
        "dis-tilled",
        "fer-mented",
        "ciga-rettes",
        "auto-mobiles",
        "indi-viduals",
        "sav-ings",
        "cur-rent",
        "out-standing",
        "certif-icates",
        "re-sources",
        "col-lected",
        "agen-cies",
        "retail-ers",
    )
}
LABEL_MARKS = ("3/", "4/")
LABEL_NOTES = {
    "3/": "3/ Includes collections for other agencies.",
    "4/": "4/ Excludes transfers to trust accounts.",
}


@dataclass(frozen=True)
class Layout:
    """How a series is printed beyond the classic layout (real bulletin layouts)."""

    recipe: str = ""  # "" (classic) or a key of RECIPES
    unit_place: str = "line"  # line | title | column_head | page_head | none
    columns: str = "years"  # years | quarters | budget | dims | securities | through (cat_rows)
    # period rows: dated ("Jan. 1950") | year_row ("1949-July", "August", ...) |
    # fy_then_months (fiscal-year rows, then month rows under a year row, under the stub
    # head "Fiscal year or month") | sections (stub headings "Fiscal years:", "Calendar
    # years:", "Months:" over the rows they date, an estimate row last among the years) |
    # grid (a heading line per category over its year rows, "Jan." ... "Dec." and
    # "Total" across: pipeline.synth.month_grid) | report_dates ("7/29/83", a quarter
    # end's date over three rows told apart by where the position is held, a text column
    # right of the figures: pipeline.synth.date_groups)
    month_rows: str = "dated"
    wrap: bool = False  # long stub labels wrapped over two lines, some hyphenated
    headings: bool = False  # a heading line "Internal revenue:" over each group's rows
    label_marks: bool = False  # footnote marks "3/" after some stub labels
    chart: bool = False  # a bar chart with a legend line printed above the table
    continued: bool = False  # split over two pages, the second titled "(Continued)"
    leaders: bool = False  # dot leaders from each stub label to the figures ("1942 .....")
    half: bool = False  # printed on half the page width, beside the next such table


CLASSIC = Layout()
RECIPES: dict[str, Layout] = {
    "quarters": Layout(
        "quarters", unit_place="title", columns="quarters", wrap=True, headings=True, chart=True
    ),
    "budget": Layout("budget", unit_place="column_head", columns="budget", label_marks=True),
    "dims": Layout("dims", unit_place="page_head", columns="dims"),
    "months": Layout("months", month_rows="year_row", continued=True, leaders=True),
    "securities": Layout("securities", unit_place="none", columns="securities", leaders=True),
    # 1948-05 p17 (Railroad Retirement Act): fiscal years 1940 ... 1947, then 1947-July ...
    "fiscal_months": Layout("fiscal_months", month_rows="fy_then_months", leaders=True),
    # 1953-09 p29 (Savings bonds, Series E through K): "Fiscal years:", "Calendar years:"
    # and "Months:" headings in the stub, each over the rows it dates
    "sections": Layout("sections", month_rows="sections", leaders=True),
    # 1967-08 p107 (Net Transactions in Foreign Stocks): calendar years, "1967 through
    # June" (the year to date) and the months of 1967 as columns
    "through": Layout("through", columns="through"),
    # 1940-05 p59 (Short-Term Foreign Assets ... for February 1940): positions on the
    # days of one month ("Feb. 7", "Feb. 14", ...), the month and year in the title only
    "days": Layout("days", month_rows="days", leaders=True),
    # 1939-12 p68, 1940-05 p73: two narrow tables side by side, each its own title (over
    # two lines), unit, stub and three value columns
    "side_by_side": Layout("side_by_side", half=True, leaders=True),
    # 1940-05 p20 (Monthly Receipts, Expenditures and Excess of Expenditures): a heading
    # per series ("Receipts") over one row per calendar year, "Jan." ... "Dec." and the
    # year's "Total" across, the last year through the latest month only. Printed where
    # a corpus names it (recipes=...), not in the cycle: see pipeline.synth.month_grid
    "month_grid": Layout("month_grid", month_rows="grid", leaders=True),
    # 1984-06 p75 (Table FCP-IV-1, Nonbanking Firms' Positions): positions on report
    # dates ("7/29/83 ....", one a month), a quarter end printing three rows under its
    # date, held "Abroad", in the "United States" and (under a rule) "Worldwide", named
    # by a "Position held in:" column right of the figures; "n.a." where a figure is not
    # available. Printed where a corpus names it: see pipeline.synth.date_groups
    "date_groups": Layout("date_groups", month_rows="report_dates", leaders=True),
}
# Series are laid out in rounds of RECIPE_ROUND series, the rounds taking the recipe sets
# of CYCLE_ROUNDS in turn (a full cycle of RECIPE_CYCLE series prints every recipe of
# CYCLE_RECIPES): each full round prints every recipe of its set once (side_by_side on
# two neighbouring series, the pair printed on one page row) and the classic layout on
# the remaining series. Each set is ordered most constrained first. A corpus of at most
# one round (the small test corpora) prints the first set only.
CYCLE_ROUNDS = (
    ("quarters", "budget", "dims", "months", "securities"),
    ("days", "side_by_side", "fiscal_months", "sections", "through"),
)
CYCLE_RECIPES = tuple(name for names in CYCLE_ROUNDS for name in names)
PAIRED_RECIPES = frozenset({"side_by_side"})  # printed on two neighbouring series
RECIPE_ROUND = 8
RECIPE_CYCLE = RECIPE_ROUND * len(CYCLE_ROUNDS)
