//! The scripting languages: Python, JavaScript and TypeScript, as tables
//! the one scanner reads.

use super::super::spec::{
    quote, Quote, Spec, CALLS, CAPITALIZED_TYPES, DECORATORS, DOLLAR_WORDS, STRING_PREFIXES,
};

const JS_QUOTES: &[Quote] = &[
    quote("\"", true, false),
    quote("'", true, false),
    quote("`", true, true),
];

pub(in crate::app::markdown::highlight) const PYTHON: Spec = Spec {
    line_comments: &["#"],
    block_comment: None,
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", true, true),
        quote("\"", true, false),
        quote("'", true, false),
    ],
    keywords: &[&[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "self", "try", "while",
        "with", "yield",
    ]],
    types: &[
        "bool",
        "bytes",
        "dict",
        "float",
        "frozenset",
        "int",
        "list",
        "object",
        "set",
        "str",
        "tuple",
    ],
    literals: &["False", "None", "True"],
    flags: CAPITALIZED_TYPES | CALLS | DECORATORS | STRING_PREFIXES,
};

const JS_KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "finally",
    "for",
    "from",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "let",
    "new",
    "of",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];
const JS_LITERALS: &[&str] = &["Infinity", "NaN", "false", "null", "true", "undefined"];

pub(in crate::app::markdown::highlight) const JAVASCRIPT: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: JS_QUOTES,
    keywords: &[JS_KEYWORDS],
    types: &[],
    literals: JS_LITERALS,
    flags: CAPITALIZED_TYPES | CALLS | DOLLAR_WORDS,
};

pub(in crate::app::markdown::highlight) const TYPESCRIPT: Spec = Spec {
    keywords: &[
        JS_KEYWORDS,
        &[
            "abstract",
            "declare",
            "enum",
            "implements",
            "infer",
            "interface",
            "is",
            "keyof",
            "namespace",
            "private",
            "protected",
            "public",
            "readonly",
            "satisfies",
            "type",
        ],
    ],
    types: &[
        "any", "bigint", "boolean", "never", "number", "object", "string", "symbol", "unknown",
    ],
    flags: CAPITALIZED_TYPES | CALLS | DOLLAR_WORDS | DECORATORS,
    ..JAVASCRIPT
};
