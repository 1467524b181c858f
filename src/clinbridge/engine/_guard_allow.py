"""What the SQL guard admits: allow-lists of syntax nodes, functions, table functions and types.

Everything here is an ALLOW-list. A node, function or type that is not listed is refused, so a
function nobody thought of (``ts_stat``, ``query_to_xml``, ``sleep_ms``, a new DuckDB file reader)
is refused because nobody admitted it, not because somebody remembered to forbid it.

* :data:`NODE_TYPES`: sqlglot expression classes a query may contain (other than functions).
* :data:`FUNCTION_CLASSES`: typed sqlglot function classes that are pure: aggregates, window
  functions, arithmetic, string, date/time, JSON and list functions with no access to files,
  the network, settings, sequences, sessions or the clock beyond the current date.
* :data:`ANONYMOUS_FUNCTIONS`: per dialect, the lower-case names of pure functions sqlglot does
  not type (it parses them as ``Anonymous``).
* :data:`TABLE_FUNCTIONS`: functions that may appear in ``FROM``: value generators only.
* :data:`DATA_TYPES`: types a ``CAST`` may name (no ``regclass``, ``xml``, user-defined types).

Written for this project from the sqlglot expression list and the PostgreSQL, DuckDB and SQLite
function references.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = [
    "ANONYMOUS_FUNCTIONS",
    "BOUNDED_FUNCTIONS",
    "DATA_TYPES",
    "FUNCTION_CLASSES",
    "FUNCTION_CLASSES_BY_DIALECT",
    "NODE_TYPES",
    "SERIES_CLASSES",
    "TABLE_FUNCTION_CLASSES",
    "TABLE_FUNCTION_NAMES",
]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _classes(names: str, base: type[exp.Expr]) -> frozenset[type[exp.Expr]]:
    """Resolve class names, skipping those an older or newer sqlglot does not define."""
    out = set()
    for name in names.split():
        cls = getattr(exp, name, None)
        if isinstance(cls, type) and issubclass(cls, base):
            out.add(cls)
    return frozenset(out)


NODE_TYPES = _classes(
    """
    Select Union Intersect Except Subquery With CTE From Join Where Group Having Order Ordered
    Limit Offset Fetch Qualify Window WindowSpec Filter WithinGroup IgnoreNulls RespectNulls
    Distinct Table TableAlias Column Identifier Star Alias Aliases Literal Null Boolean
    HexString BitString ByteString RawString UnicodeString National Heredoc Var Interval
    IntervalSpan DataType DataTypeParam Paren Tuple Bracket Slice Dot Lambda Kwarg PropertyEQ
    Add Sub Mul Div IntDiv Mod Neg Not EQ NEQ GT GTE LT LTE NullSafeEQ NullSafeNEQ Is In
    Between Like ILike SimilarTo Glob Escape Any All DPipe BitwiseAnd BitwiseOr BitwiseXor
    BitwiseNot BitwiseLeftShift BitwiseRightShift Overlaps AtTimeZone When Cube Rollup
    GroupingSets Lateral Values PositionalColumn Comprehension JSONPath JSONPathKey JSONPathRoot
    JSONPathSubscript JSONPathWildcard JSONPathSlice JSONPathSelector JSONPathUnion JSONPathPart
    LimitOptions
    """,
    exp.Expr,
)
"""Non-function syntax a query may contain."""

FUNCTION_CLASSES = _classes(
    """
    And Or Xor Case If Coalesce Nullif Nvl2 Greatest Least Cast TryCast Collate Exists
    Count CountIf Sum Avg Min Max Median Mode Quantile PercentileCont PercentileDisc
    ApproxDistinct ApproxQuantile Stddev StddevPop StddevSamp Variance VariancePop Corr CovarPop
    CovarSamp RegrSlope RegrIntercept RegrR2 RegrCount RegrAvgx RegrAvgy Kurtosis Skewness
    AnyValue First Last ArgMax ArgMin ArrayAgg GroupConcat LogicalAnd LogicalOr BitwiseAndAgg
    BitwiseOrAgg BitwiseXorAgg Grouping GroupingId
    RowNumber Rank DenseRank PercentRank CumeDist Ntile Lag Lead FirstValue LastValue NthValue
    Abs Sign Round Trunc Floor Ceil Sqrt Cbrt Pow Exp Ln Log Pi Degrees Radians Sin Cos Tan Cot
    Asin Acos Atan Atan2 Sinh Cosh Tanh Asinh Acosh Atanh Factorial IsNan IsInf SafeDivide
    WidthBucket Rint
    Lower Upper Initcap Length BitLength ByteLength Substring Left Right Trim Concat ConcatWs
    Replace Reverse Translate StrPosition Pad SplitPart Split StartsWith EndsWith Contains Ascii
    Chr Unicode Hex Unhex LowerHex MD5 MD5Digest SHA SHA2 Levenshtein Soundex RegexpLike
    RegexpILike RegexpReplace RegexpExtract RegexpExtractAll RegexpCount RegexpSplit
    RegexpSubstr RegexpInstr Overlay Elt StringToArray ArrayToString
    Date Datetime Time Timestamp DateAdd DateSub DateDiff DateTrunc DatetimeAdd DatetimeSub
    DatetimeDiff DatetimeTrunc TimestampAdd TimestampSub TimestampDiff TimestampTrunc TimeAdd
    TimeSub TimeDiff TimeTrunc Extract Year Quarter Month Week WeekOfYear Day DayOfMonth
    DayOfWeek DayOfWeekIso DayOfYear Hour Minute Second Dayname Monthname LastDay AddMonths
    MonthsBetween MakeInterval JustifyDays JustifyHours JustifyInterval DateFromParts
    TimeFromParts TimestampFromParts StrToDate StrToTime TimeToStr TimeStrToDate TimeStrToTime
    TimeToTimeStr DateStrToDate DateToDateStr TsOrDsToDate TsOrDsToDateStr TsOrDsToTimestamp
    TsOrDsToDatetime TsOrDsToTime TsOrDsAdd TsOrDsDiff TsOrDiToDi DiToDate DateToDi UnixToTime
    UnixToStr UnixToTimeStr TimeToUnix TimeStrToUnix StrToUnix UnixDate UnixSeconds UnixMillis
    UnixMicros DateFromUnixDate NumberToStr ToChar ToNumber ToDouble CurrentDate
    CurrentTimestamp CurrentTime CurrentDatetime Localtime Localtimestamp UtcDate UtcTime
    UtcTimestamp FromISO8601Date FromISO8601Timestamp
    ParseJSON JSONExtract JSONExtractScalar JSONBExtract JSONBExtractScalar JSONBContains
    JSONArray JSONObject JSONArrayAgg JSONObjectAgg JSONBObjectAgg JSONFormat JSONType JSONKeys
    JSONExists JSONCast
    Array ArraySize ArrayContains ArrayContainsAll ArrayOverlaps ArrayConcat ArrayAppend
    ArrayPrepend ArrayFilter ArraySort ArraySlice ArrayDistinct ArrayReverse ArrayPosition
    ArrayFirst ArrayLast ArrayMin ArrayMax ArraySum ArrayIntersect ArrayExcept Transform
    Struct StructExtract Map MapKeys MapSize VarMap StarMap List Columns Typeof
    Unnest Explode Posexplode GenerateSeries ExplodingGenerateSeries GenerateDateArray
    """,
    exp.Func,
)
"""Typed sqlglot functions that are pure (no files, network, settings, sessions or sequences)."""

_COMMON = """
abs sign round trunc floor ceil ceiling sqrt cbrt power pow exp ln log log10 log2 mod pi
degrees radians sin cos tan cot asin acos atan atan2 sinh cosh tanh greatest least
lower upper length char_length character_length octet_length bit_length substr substring
left right trim ltrim rtrim btrim replace reverse translate strpos position instr
split_part concat concat_ws initcap ascii chr unicode char hex unhex md5 regexp_replace
regexp_matches regexp_like starts_with ends_with contains levenshtein
coalesce nullif ifnull iif nvl count sum avg min max total median mode stddev stddev_pop
stddev_samp variance var_pop var_samp corr covar_pop covar_samp string_agg group_concat
array_agg bool_and bool_or every any_value first last arg_max arg_min percentile_cont
percentile_disc quantile quantile_cont quantile_disc approx_count_distinct
row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value
nth_value date time datetime timestamp julianday strftime unixepoch date_part datepart
date_trunc datetrunc date_diff datediff date_add date_sub age extract epoch make_date
make_time make_timestamp make_interval to_char to_date to_timestamp to_number isfinite
justify_days justify_hours justify_interval last_day dayname monthname year month day
quarter week weekday dayofweek dayofyear yearweek hour minute second isodow isoyear
current_date current_timestamp current_time localtime localtimestamp
json_extract json_extract_string json_extract_path json_extract_path_text json_array_length
json_type json_valid json_object json_array json_build_object json_build_array
jsonb_build_object jsonb_extract_path jsonb_extract_path_text to_json to_jsonb row_to_json
json_agg jsonb_agg json_object_agg jsonb_object_agg json_group_array json_group_object
array_length cardinality array_position array_to_string string_to_array array_cat
array_append array_prepend array_remove list_value list_extract list_contains list_has
list_sort list_distinct list_aggregate list_element len unnest generate_series range
generate_subscripts typeof likely unlikely
"""

ANONYMOUS_FUNCTIONS: dict[str, frozenset[str]] = {
    "": _names(_COMMON),
    "duckdb": _names("""
        list_transform list_filter list_reduce list_slice list_reverse array_slice
        regexp_extract regexp_full_match regexp_split_to_array string_split str_split
        strip_accents nfc_normalize epoch_ms time_bucket date_diff datesub dateadd
        """),
    "postgres": _names("""
        regexp_split_to_array regexp_split_to_table string_to_table jsonb_each jsonb_each_text
        json_each json_each_text jsonb_array_elements jsonb_array_elements_text
        json_array_elements json_array_elements_text jsonb_typeof json_typeof width_bucket
        scale div gcd lcm factorial date_bin format
        """),
    "sqlite": _names("json_each json_tree json_group_array json_quote"),
}
"""Lower-case names of pure functions sqlglot parses as ``Anonymous``; ``""`` is every dialect."""

FUNCTION_CLASSES_BY_DIALECT: dict[str, frozenset[type[exp.Expr]]] = {
    # PostgreSQL checks for cancellation while it builds a value; DuckDB and SQLite do not,
    # so one call of these is one uninterruptible step there (format('{:>1000000000}', 'x')
    # ran 12 s past a 1 s timeout on DuckDB, printf 24 s on SQLite).
    "postgres": _classes("Format", exp.Func),
}
"""Typed functions admitted only in some dialects."""

BOUNDED_FUNCTIONS: dict[type[exp.Expr], tuple[str, int]] = {
    exp.Pad: ("expression", 10_000),
}
"""Functions admitted only when one argument is a constant no larger than a bound: ``lpad(x,
n)`` builds an ``n``-character value in one step (a billion took DuckDB 50 s past its timeout)."""

SERIES_CLASSES = _classes("GenerateSeries ExplodingGenerateSeries GenerateDateArray", exp.Func)
"""Series generators: streamed (and cancellable) in ``FROM``; as a value they build the whole
list in one step, which DuckDB cannot interrupt (``len(range(10^9))`` ran 196 s past 1 s)."""

TABLE_FUNCTION_CLASSES = _classes(
    "Unnest Explode Posexplode GenerateSeries ExplodingGenerateSeries GenerateDateArray", exp.Func
)
"""Typed functions that may be read from in ``FROM``: value generators."""

TABLE_FUNCTION_NAMES = _names("""
    generate_series range unnest json_each json_tree jsonb_each jsonb_each_text json_each_text
    jsonb_array_elements json_array_elements jsonb_array_elements_text json_array_elements_text
    generate_subscripts regexp_split_to_table string_to_table
    """)
"""Lower-case names of ``Anonymous`` functions that may appear in ``FROM``."""

DATA_TYPES = frozenset(
    t
    for name in _names(
        """
    ARRAY BIGDECIMAL BIGINT BINARY BIT BLOB BOOLEAN BPCHAR CHAR DATE DATE32 DATETIME DATETIME2
    DATETIME64 DECIMAL DECIMAL32 DECIMAL64 DECIMAL128 DECFLOAT DOUBLE FLOAT INT INT128 INTERVAL
    JSON JSONB LIST MAP MEDIUMINT MONEY NCHAR NULL NVARCHAR SMALLINT STRUCT TEXT TIME TIMETZ
    TIMESTAMP TIMESTAMPNTZ TIMESTAMPLTZ TIMESTAMPTZ TIMESTAMP_S TIMESTAMP_MS TIMESTAMP_NS TINYINT
    UBIGINT UINT UINT128 USMALLINT UTINYINT UDECIMAL UDOUBLE UNKNOWN UUID VARBINARY VARCHAR
    """
    )
    if (t := getattr(exp.DataType.Type, name, None)) is not None
)
"""Types a ``CAST`` may name."""
