//! Syntax highlighting for code blocks, one line at a time. A hand-written
//! scanner per family of languages (C-like and scripting languages share one,
//! driven by a table of keywords and string forms; markup, CSS, YAML, shell and
//! diffs have their own), carrying between lines only the construct a line
//! left open: a block comment, a multi-line string, an open tag, a YAML block
//! scalar. So a line costs time in its own length, whatever came before, and
//! an open fence can be highlighted as its lines arrive.
//!
//! It must never write markup of its own besides `<span class="hl-…">` around
//! text, with a class from [`HIGHLIGHT_CLASSES`]; every byte of the code
//! reaches the output escaped, inside or outside a span. Nothing nests.
//!
//! Chosen by measurement, 2026-12-01 (rustc 1.95), each candidate in a crate
//! of its own that highlights a block for any fence word, against the same
//! crate only escaping the code, built as the browser bundle is (wasm32,
//! `opt-level = "z"`, LTO, one codegen unit, `wasm-opt -Oz`, stripped):
//! - this module: **+25.3 KB raw, +11.6 KB gzip, +10.9 KB zstd -19** (14.2 KB
//!   of functions, about 10.5 KB of tables: keywords, fence words);
//! - `syntect` 5.3 (parsing, default syntaxes, fancy-regex, HTML classes):
//!   **+1,343 KB raw, +700 KB gzip**, over twice the page's whole budget, and
//!   it compiles its grammars' regexes when first used;
//! - tree-sitter was not built: its parsers are C, which needs a C toolchain
//!   for wasm32 (clang) that this machine lacks, and a grammar per language.
//!
//! Time, native, over 1.5 MB of Rust, Python, TypeScript, Bash, YAML, HTML,
//! JSON and C: **5.3 µs per KB** at opt-level 3, **16.7 µs per KB** at
//! opt-level z (escaping alone: 0.4–0.7 µs per KB), so a 10 KB block takes
//! under 0.2 ms and a line of an open fence about a microsecond. Keyword
//! lookups were half the time until `Filter` and `in_sorted`.
//!
//! Token classes: `hl-kw` keyword, `hl-ty` type, `hl-lit` literal (true,
//! null, None, an HTML entity), `hl-num` number, `hl-str` string, `hl-com`
//! comment, `hl-fn` function, macro or command, `hl-meta` attribute,
//! decorator, directive, lifetime or diff header, `hl-tag` markup tag or CSS
//! element selector, `hl-attr` attribute name, object key or CSS property,
//! `hl-var` shell variable or YAML anchor, `hl-add`/`hl-del` diff lines.
//!
//! Longer than the ~450 lines a file keeps here: the keyword and string-form
//! tables of fifteen languages are most of it (the scanners themselves are a
//! few hundred lines); split per family of languages when one more is added.

use std::borrow::Cow;

use pulldown_cmark_escape::escape_html_body_text;

/// Every class the highlighter writes (on `<span>`s only), for the sanitizer's
/// allow-list and the style sheet. Indexed by `Class`.
pub const HIGHLIGHT_CLASSES: &[&str] = &[
    "hl-kw", "hl-ty", "hl-lit", "hl-num", "hl-str", "hl-com", "hl-fn", "hl-meta", "hl-tag",
    "hl-attr", "hl-var", "hl-add", "hl-del",
];

/// What a span of code is; the index of its name in `HIGHLIGHT_CLASSES`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Keyword,
    Type,
    Literal,
    Number,
    Str,
    Comment,
    Function,
    Meta,
    Tag,
    Attr,
    Var,
    Added,
    Deleted,
}

impl Class {
    fn name(self) -> &'static str {
        HIGHLIGHT_CLASSES[self as usize]
    }
}

/// Highlights a code block line by line, for the language its fence names.
#[derive(Clone, Debug)]
pub struct LineHighlighter {
    lang: Lang,
    label: Option<Cow<'static, str>>,
    language: String,
    state: State,
    /// CSS: how many `{` are open (declarations inside, selectors outside).
    depth: u32,
    /// `word_filter` of the language's lists.
    filter: Filter,
}

impl LineHighlighter {
    /// For a fence's info string ("rust", "py", "ts", "c++", "sh", "yml", …):
    /// its first word picks the language, case aside; an unknown word or none
    /// gives plain (escaped) text.
    pub fn for_info(info: &str) -> Self {
        let language = super::code_language(info).into_string();
        let lower = language.to_ascii_lowercase();
        let known = LANGUAGES.iter().find(|(alias, _, _)| *alias == lower);
        let (lang, label) = match known {
            Some((_, label, lang)) => (*lang, Some(Cow::Borrowed(*label))),
            None if language.is_empty() => (Lang::Plain, None),
            None => (Lang::Plain, Some(Cow::Owned(language.clone()))),
        };
        LineHighlighter {
            lang,
            label,
            language,
            state: State::Normal,
            depth: 0,
            filter: match lang {
                Lang::Code(spec) => word_filter(spec),
                _ => [0; 4],
            },
        }
    }

    /// The name shown on the block: the language's own ("Rust", "Python",
    /// "C++"), the fence's word as written when the language is unknown, or
    /// none for a block without one. Plain text, to be escaped.
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// The fence's first word if it is one plain word (the code element's
    /// `language-…` class, see `markdown::code_language`), else empty.
    pub fn language(&self) -> &str {
        &self.language
    }

    /// Appends `line` as `push_line` would, keeping nothing for the next: for
    /// the line of an open fence that is still being written. Copies no
    /// strings (a clone would copy the label and language).
    pub fn preview_line(&self, line: &str, out: &mut String) {
        let mut scanner = LineHighlighter {
            label: None,
            language: String::new(),
            ..*self
        };
        scanner.push_line(line, out);
    }

    /// Appends one line (without its newline) as escaped, highlighted HTML to
    /// `out`, and keeps what it leaves open (a comment, a string) for the next.
    pub fn push_line(&mut self, line: &str, out: &mut String) {
        let mut emit = Emit { line, out, done: 0 };
        self.state = match self.lang {
            Lang::Plain => State::Normal,
            Lang::Code(spec) => code_line(spec, &self.filter, self.state, line, &mut emit),
            Lang::Shell => shell_line(self.state, line, 0, &mut emit),
            Lang::Console => console_line(self.state, line, &mut emit),
            Lang::Markup => markup_line(self.state, line, &mut emit),
            Lang::Css => css_line(self.state, &mut self.depth, line, &mut emit),
            Lang::Yaml => yaml_line(self.state, line, &mut emit),
            Lang::Diff => diff_line(line, &mut emit),
        };
        emit.finish();
    }
}

/// Which scanner a language uses.
#[derive(Clone, Copy, Debug)]
enum Lang {
    Plain,
    Code(&'static Spec),
    Shell,
    /// A shell session: `$ ` lines are commands, the rest output.
    Console,
    Markup,
    Css,
    Yaml,
    Diff,
}

/// What the previous line left open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Normal,
    /// A block comment, nested this deep.
    Comment(u32),
    /// A string opened by `Spec::quotes[i]` (the shell: by this quote byte).
    Quoted(u8),
    /// A Rust raw string closed by `"` and this many `#`.
    RawString(u8),
    /// Inside a markup tag, between its attributes.
    InTag,
    /// Inside a tag's attribute value quoted by this byte.
    TagValue(u8),
    /// A YAML block scalar whose key sits at this column.
    BlockScalar(u32),
}

/// Fence words, the label shown for them, and their scanner.
const LANGUAGES: &[(&str, &str, Lang)] = &[
    ("rust", "Rust", Lang::Code(&RUST)),
    ("rs", "Rust", Lang::Code(&RUST)),
    ("python", "Python", Lang::Code(&PYTHON)),
    ("py", "Python", Lang::Code(&PYTHON)),
    ("python3", "Python", Lang::Code(&PYTHON)),
    ("py3", "Python", Lang::Code(&PYTHON)),
    ("javascript", "JavaScript", Lang::Code(&JAVASCRIPT)),
    ("js", "JavaScript", Lang::Code(&JAVASCRIPT)),
    ("mjs", "JavaScript", Lang::Code(&JAVASCRIPT)),
    ("cjs", "JavaScript", Lang::Code(&JAVASCRIPT)),
    ("node", "JavaScript", Lang::Code(&JAVASCRIPT)),
    ("jsx", "JSX", Lang::Code(&JAVASCRIPT)),
    ("typescript", "TypeScript", Lang::Code(&TYPESCRIPT)),
    ("ts", "TypeScript", Lang::Code(&TYPESCRIPT)),
    ("mts", "TypeScript", Lang::Code(&TYPESCRIPT)),
    ("tsx", "TSX", Lang::Code(&TYPESCRIPT)),
    ("json", "JSON", Lang::Code(&JSON)),
    ("jsonc", "JSON", Lang::Code(&JSON)),
    ("json5", "JSON5", Lang::Code(&JSON)),
    ("bash", "Bash", Lang::Shell),
    ("sh", "Shell", Lang::Shell),
    ("shell", "Shell", Lang::Shell),
    ("zsh", "Zsh", Lang::Shell),
    ("ksh", "Shell", Lang::Shell),
    ("shellscript", "Shell", Lang::Shell),
    ("console", "Console", Lang::Console),
    ("shell-session", "Console", Lang::Console),
    ("terminal", "Terminal", Lang::Console),
    ("c", "C", Lang::Code(&C)),
    ("h", "C", Lang::Code(&C)),
    ("c++", "C++", Lang::Code(&CPP)),
    ("cpp", "C++", Lang::Code(&CPP)),
    ("cc", "C++", Lang::Code(&CPP)),
    ("cxx", "C++", Lang::Code(&CPP)),
    ("hpp", "C++", Lang::Code(&CPP)),
    ("hh", "C++", Lang::Code(&CPP)),
    ("go", "Go", Lang::Code(&GO)),
    ("golang", "Go", Lang::Code(&GO)),
    ("java", "Java", Lang::Code(&JAVA)),
    ("sql", "SQL", Lang::Code(&SQL)),
    ("mysql", "SQL", Lang::Code(&SQL)),
    ("postgres", "SQL", Lang::Code(&SQL)),
    ("postgresql", "SQL", Lang::Code(&SQL)),
    ("psql", "SQL", Lang::Code(&SQL)),
    ("sqlite", "SQL", Lang::Code(&SQL)),
    ("plsql", "SQL", Lang::Code(&SQL)),
    ("html", "HTML", Lang::Markup),
    ("htm", "HTML", Lang::Markup),
    ("xhtml", "XHTML", Lang::Markup),
    ("xml", "XML", Lang::Markup),
    ("svg", "SVG", Lang::Markup),
    ("vue", "Vue", Lang::Markup),
    ("css", "CSS", Lang::Css),
    ("scss", "SCSS", Lang::Css),
    ("less", "Less", Lang::Css),
    ("yaml", "YAML", Lang::Yaml),
    ("yml", "YAML", Lang::Yaml),
    ("toml", "TOML", Lang::Code(&TOML)),
    ("ini", "INI", Lang::Code(&TOML)),
    ("diff", "Diff", Lang::Diff),
    ("patch", "Diff", Lang::Diff),
    ("udiff", "Diff", Lang::Diff),
    ("text", "Text", Lang::Plain),
    ("txt", "Text", Lang::Plain),
    ("plain", "Text", Lang::Plain),
    ("plaintext", "Text", Lang::Plain),
    ("output", "Output", Lang::Plain),
];

/// Escaped text in and out of spans. Spans are written in order; text between
/// them (and after the last) is escaped as plain.
struct Emit<'a> {
    line: &'a str,
    out: &'a mut String,
    done: usize,
}

impl Emit<'_> {
    fn span(&mut self, class: Class, start: usize, end: usize) {
        let line = self.line;
        // A scanner bug must never cut a character or repeat text: such a
        // span is dropped and its text stays plain.
        if start < self.done
            || end <= start
            || !line.is_char_boundary(start)
            || !line.is_char_boundary(end)
        {
            return;
        }
        escape(self.out, &line[self.done..start]);
        self.out.push_str("<span class=\"");
        self.out.push_str(class.name());
        self.out.push_str("\">");
        escape(self.out, &line[start..end]);
        self.out.push_str("</span>");
        self.done = end;
    }

    fn finish(self) {
        escape(self.out, &self.line[self.done..]);
    }
}

fn escape(out: &mut String, text: &str) {
    // Writing into a String cannot fail.
    let _ = escape_html_body_text(&mut *out, text);
}

/// A C-like or scripting language, as tables.
#[derive(Debug)]
struct Spec {
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    /// Longer openers first (`"""` before `"`).
    quotes: &'static [Quote],
    /// Sorted lists (lower case where `CASE_INSENSITIVE`).
    keywords: &'static [&'static [&'static str]],
    types: &'static [&'static str],
    literals: &'static [&'static str],
    flags: u16,
}

#[derive(Debug)]
struct Quote {
    open: &'static str,
    close: &'static str,
    escapes: bool,
    multiline: bool,
}

const fn quote(open: &'static str, escapes: bool, multiline: bool) -> Quote {
    Quote {
        open,
        close: open,
        escapes,
        multiline,
    }
}

/// `/* */` comments nest (Rust).
const NESTED_COMMENTS: u16 = 1;
/// `Capitalized` words are types.
const CAPITALIZED_TYPES: u16 = 1 << 1;
/// A word before `(` is a function.
const CALLS: u16 = 1 << 2;
/// Rust: `name!` macros, `'a` lifetimes and chars, raw and byte strings, `#[…]`.
const RUST_SYNTAX: u16 = 1 << 3;
/// C: `#include`-style directives.
const PREPROCESSOR: u16 = 1 << 4;
/// `@decorator` / `@Annotation`.
const DECORATORS: u16 = 1 << 5;
/// Python: `r"…"`, `f'…'`, `rb"…"` prefixes belong to the string.
const STRING_PREFIXES: u16 = 1 << 6;
/// JSON: a string before `:` is a key.
const STRING_KEYS: u16 = 1 << 7;
/// TOML: a word before `=` is a key, `[table]` lines are headers.
const TOML_SYNTAX: u16 = 1 << 8;
/// `$` is a word character (JavaScript).
const DOLLAR_WORDS: u16 = 1 << 9;
/// Keywords in any case (SQL).
const CASE_INSENSITIVE: u16 = 1 << 10;

const C_QUOTES: &[Quote] = &[quote("\"", true, false), quote("'", true, false)];
const JS_QUOTES: &[Quote] = &[
    quote("\"", true, false),
    quote("'", true, false),
    quote("`", true, true),
];

const RUST: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote("\"", true, true)],
    keywords: &[&[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "self", "static", "struct", "super", "trait", "type", "union",
        "unsafe", "use", "where", "while",
    ]],
    types: &[
        "Self", "bool", "char", "f32", "f64", "i128", "i16", "i32", "i64", "i8", "isize", "str",
        "u128", "u16", "u32", "u64", "u8", "usize",
    ],
    literals: &["Err", "None", "Ok", "Some", "false", "true"],
    flags: NESTED_COMMENTS | CAPITALIZED_TYPES | CALLS | RUST_SYNTAX,
};

const PYTHON: Spec = Spec {
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

const JAVASCRIPT: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: JS_QUOTES,
    keywords: &[JS_KEYWORDS],
    types: &[],
    literals: JS_LITERALS,
    flags: CAPITALIZED_TYPES | CALLS | DOLLAR_WORDS,
};

const TYPESCRIPT: Spec = Spec {
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

const JSON: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote("\"", true, false)],
    keywords: &[],
    types: &[],
    literals: &["false", "null", "true"],
    flags: STRING_KEYS,
};

const C_KEYWORDS: &[&str] = &[
    "auto", "break", "case", "const", "continue", "default", "do", "else", "enum", "extern", "for",
    "goto", "if", "inline", "register", "restrict", "return", "sizeof", "static", "struct",
    "switch", "typedef", "union", "volatile", "while",
];
const C_TYPES: &[&str] = &[
    "FILE",
    "bool",
    "char",
    "double",
    "float",
    "int",
    "int16_t",
    "int32_t",
    "int64_t",
    "int8_t",
    "long",
    "ptrdiff_t",
    "short",
    "signed",
    "size_t",
    "ssize_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uint8_t",
    "uintptr_t",
    "unsigned",
    "void",
];

const C: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: C_QUOTES,
    keywords: &[C_KEYWORDS],
    types: C_TYPES,
    literals: &["NULL", "false", "true"],
    flags: CALLS | PREPROCESSOR,
};

const CPP: Spec = Spec {
    keywords: &[
        C_KEYWORDS,
        &[
            "alignas",
            "alignof",
            "catch",
            "class",
            "co_await",
            "co_return",
            "co_yield",
            "concept",
            "consteval",
            "constexpr",
            "constinit",
            "decltype",
            "delete",
            "explicit",
            "export",
            "final",
            "friend",
            "mutable",
            "namespace",
            "new",
            "noexcept",
            "operator",
            "override",
            "private",
            "protected",
            "public",
            "requires",
            "static_assert",
            "template",
            "this",
            "throw",
            "try",
            "typeid",
            "typename",
            "using",
            "virtual",
        ],
    ],
    literals: &["NULL", "false", "nullptr", "true"],
    ..C
};

const GO: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[
        quote("\"", true, false),
        quote("`", false, true),
        quote("'", true, false),
    ],
    keywords: &[&[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ]],
    types: &[
        "any",
        "bool",
        "byte",
        "complex128",
        "complex64",
        "error",
        "float32",
        "float64",
        "int",
        "int16",
        "int32",
        "int64",
        "int8",
        "rune",
        "string",
        "uint",
        "uint16",
        "uint32",
        "uint64",
        "uint8",
        "uintptr",
    ],
    literals: &["false", "iota", "nil", "true"],
    flags: CALLS,
};

const JAVA: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[
        quote("\"\"\"", true, true),
        quote("\"", true, false),
        quote("'", true, false),
    ],
    keywords: &[&[
        "abstract",
        "assert",
        "break",
        "case",
        "catch",
        "class",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "for",
        "if",
        "implements",
        "import",
        "instanceof",
        "interface",
        "native",
        "new",
        "package",
        "private",
        "protected",
        "public",
        "record",
        "return",
        "static",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "try",
        "var",
        "volatile",
        "while",
        "yield",
    ]],
    types: &[
        "boolean", "byte", "char", "double", "float", "int", "long", "short", "void",
    ],
    literals: &["false", "null", "true"],
    flags: CAPITALIZED_TYPES | CALLS | DECORATORS,
};

const SQL: Spec = Spec {
    line_comments: &["--"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote("'", false, true), quote("\"", false, false)],
    keywords: &[&[
        "add",
        "all",
        "alter",
        "and",
        "as",
        "asc",
        "begin",
        "between",
        "by",
        "case",
        "check",
        "column",
        "commit",
        "constraint",
        "create",
        "cross",
        "default",
        "delete",
        "desc",
        "distinct",
        "drop",
        "else",
        "end",
        "exists",
        "foreign",
        "from",
        "full",
        "group",
        "having",
        "if",
        "in",
        "index",
        "inner",
        "insert",
        "into",
        "is",
        "join",
        "key",
        "left",
        "like",
        "limit",
        "not",
        "offset",
        "on",
        "or",
        "order",
        "outer",
        "over",
        "partition",
        "primary",
        "references",
        "returning",
        "right",
        "rollback",
        "select",
        "set",
        "table",
        "then",
        "transaction",
        "union",
        "unique",
        "update",
        "using",
        "values",
        "view",
        "when",
        "where",
        "with",
    ]],
    types: &[
        "bigint",
        "boolean",
        "char",
        "date",
        "decimal",
        "float",
        "int",
        "integer",
        "json",
        "jsonb",
        "numeric",
        "real",
        "serial",
        "smallint",
        "text",
        "timestamp",
        "uuid",
        "varchar",
    ],
    literals: &["false", "null", "true"],
    flags: CALLS | CASE_INSENSITIVE,
};

const TOML: Spec = Spec {
    line_comments: &["#", ";"],
    block_comment: None,
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", false, true),
        quote("\"", true, false),
        quote("'", false, false),
    ],
    keywords: &[],
    types: &[],
    literals: &["false", "inf", "nan", "true"],
    flags: TOML_SYNTAX,
};

/// Keywords after which the next word is a name being defined.
const DEFINES_FUNCTION: &[&str] = &["def", "fn", "func", "function"];
const DEFINES_TYPE: &[&str] = &[
    "class",
    "enum",
    "interface",
    "record",
    "struct",
    "trait",
    "type",
    "union",
];

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// Where the word starting at `i` ends. Bytes of non-ASCII characters are
/// word bytes, so a word never ends inside a character.
fn word_end(b: &[u8], mut i: usize, extra: &[u8]) -> usize {
    while i < b.len() && (is_word_byte(b[i]) || extra.contains(&b[i])) {
        i += 1;
    }
    i
}

/// Whether `pattern` (never empty) is at `i` of `b`. The first byte decides
/// most cases without a call to `memcmp` (which took half the time).
fn at(b: &[u8], i: usize, pattern: &[u8]) -> bool {
    b.get(i) == pattern.first() && b.get(i..i + pattern.len()) == Some(pattern)
}

/// The first byte at or after `i` that is not a space or tab.
fn next_non_space(b: &[u8], mut i: usize) -> Option<u8> {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    b.get(i).copied()
}

/// How many bytes the character starting with byte `c` takes.
fn char_len(c: u8) -> usize {
    match c {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// Where a string's body starting at `j` ends (after its closing quote), and
/// whether it closed on this line.
fn quote_end(b: &[u8], mut j: usize, close: &[u8], escapes: bool) -> (usize, bool) {
    while j < b.len() {
        if escapes && b[j] == b'\\' {
            j += 1;
            if j < b.len() {
                j += char_len(b[j]);
            }
        } else if at(b, j, close) {
            return (j + close.len(), true);
        } else {
            j += 1;
        }
    }
    (b.len(), false)
}

/// Where a block comment whose body continues at `j` ends, `depth` deep, and
/// the depth still open at the end of the line, if any.
fn comment_end(
    b: &[u8],
    mut j: usize,
    mut depth: u32,
    (open, close): (&str, &str),
    nested: bool,
) -> (usize, Option<u32>) {
    while j < b.len() {
        if at(b, j, close.as_bytes()) {
            j += close.len();
            depth -= 1;
            if depth == 0 {
                return (j, None);
            }
        } else if nested && at(b, j, open.as_bytes()) {
            j += open.len();
            depth = depth.saturating_add(1);
        } else {
            j += 1;
        }
    }
    (b.len(), Some(depth))
}

/// Where a number starting at `i` ends: digits, letters (hex, suffixes,
/// units), `_`, a decimal point before a digit, a sign after an exponent.
fn number_end(b: &[u8], i: usize) -> usize {
    let hex = b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X'));
    let mut j = i;
    while j < b.len() {
        let c = b[j];
        let more = c.is_ascii_alphanumeric()
            || c == b'_'
            || (c == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit))
            || (matches!(c, b'+' | b'-') && !hex && j > i && matches!(b[j - 1], b'e' | b'E'));
        if !more {
            break;
        }
        j += 1;
    }
    j
}

fn starts_number(b: &[u8], i: usize) -> bool {
    b[i].is_ascii_digit()
        || (b[i] == b'.'
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            && (i == 0 || !is_word_byte(b[i - 1])))
}

/// 256 bits, one per hash of a word's length and first and last letters
/// (case aside), set for the words a language lists: a word whose bit is
/// clear is in none of its lists, so most names skip the searches (which
/// took half the time).
type Filter = [u64; 4];

fn word_filter(spec: &Spec) -> Filter {
    let mut filter = [0; 4];
    for word in spec
        .keywords
        .iter()
        .chain([&spec.types, &spec.literals])
        .flat_map(|list| list.iter())
    {
        let bit = filter_bit(word);
        filter[bit / 64] |= 1 << (bit % 64);
    }
    filter
}

fn in_filter(filter: &Filter, word: &str) -> bool {
    let bit = filter_bit(word);
    filter[bit / 64] & (1 << (bit % 64)) != 0
}

fn filter_bit(word: &str) -> usize {
    let b = word.as_bytes();
    let first = b.first().map_or(0, |c| c | 0x20);
    let last = b.last().map_or(0, |c| c | 0x20);
    (b.len()
        .wrapping_mul(31)
        .wrapping_add(usize::from(first) * 7)
        .wrapping_add(usize::from(last)))
        & 255
}

/// Whether `word` is in one of the sorted `lists`.
fn listed(lists: &[&[&str]], word: &str, any_case: bool) -> bool {
    if any_case {
        let mut lower = [0u8; 16];
        let Some(buffer) = lower.get_mut(..word.len()) else {
            return false;
        };
        buffer.copy_from_slice(word.as_bytes());
        buffer.make_ascii_lowercase();
        let Ok(word) = std::str::from_utf8(buffer) else {
            return false;
        };
        return lists.iter().any(|list| in_sorted(list, word));
    }
    lists.iter().any(|list| in_sorted(list, word))
}

/// Binary search comparing bytes in line: keywords are a few bytes long, and
/// a call to `memcmp` per comparison cost more than the comparison.
fn in_sorted(list: &[&str], word: &str) -> bool {
    let word = word.as_bytes();
    list.binary_search_by(|entry| {
        let entry = entry.as_bytes();
        for (a, b) in entry.iter().zip(word) {
            if a != b {
                return a.cmp(b);
            }
        }
        entry.len().cmp(&word.len())
    })
    .is_ok()
}

/// One line of a C-like or scripting language, from `i`.
fn code_line(spec: &Spec, filter: &Filter, state: State, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let mut i = 0;
    // First whatever the previous line left open.
    match state {
        State::Comment(depth) => {
            let Some(delimiters) = spec.block_comment else {
                return State::Normal;
            };
            let (end, open) =
                comment_end(b, i, depth, delimiters, spec.flags & NESTED_COMMENTS != 0);
            emit.span(Class::Comment, i, end);
            if let Some(depth) = open {
                return State::Comment(depth);
            }
            i = end;
        }
        State::Quoted(q) => {
            let Some(quote) = spec.quotes.get(q as usize) else {
                return State::Normal;
            };
            let (end, closed) = quote_end(b, i, quote.close.as_bytes(), quote.escapes);
            emit.span(Class::Str, i, end);
            if !closed {
                return state;
            }
            i = end;
        }
        State::RawString(hashes) => {
            let (end, closed) = raw_string_end(b, i, hashes);
            emit.span(Class::Str, i, end);
            if !closed {
                return state;
            }
            i = end;
        }
        _ => {}
    }
    let mut defines = None;
    while i < b.len() {
        let (end, open) = code_token(spec, filter, line, i, &mut defines, emit);
        if let Some(open) = open {
            return open;
        }
        i = end.max(i + 1);
    }
    State::Normal
}

/// One token at `i`: where it ends and, if it opens a construct that runs
/// past the line's end, the state for the next line.
fn code_token(
    spec: &Spec,
    filter: &Filter,
    line: &str,
    i: usize,
    defines: &mut Option<Class>,
    emit: &mut Emit,
) -> (usize, Option<State>) {
    let b = line.as_bytes();
    let c = b[i];
    let flags = spec.flags;
    if c == b' ' || c == b'\t' {
        return (i + 1, None);
    }
    if spec.line_comments.iter().any(|p| at(b, i, p.as_bytes()))
        && !(flags & TOML_SYNTAX != 0 && c == b';' && i > 0)
    {
        emit.span(Class::Comment, i, b.len());
        return (b.len(), None);
    }
    if let Some(delimiters) = spec.block_comment {
        if at(b, i, delimiters.0.as_bytes()) {
            let (end, open) = comment_end(
                b,
                i + delimiters.0.len(),
                1,
                delimiters,
                flags & NESTED_COMMENTS != 0,
            );
            emit.span(Class::Comment, i, end);
            return (end, open.map(State::Comment));
        }
    }
    if flags & PREPROCESSOR != 0 && c == b'#' && line[..i].trim().is_empty() {
        return (directive(b, i, emit), None);
    }
    if flags & TOML_SYNTAX != 0 && c == b'[' && line[..i].trim().is_empty() {
        let end = b
            .iter()
            .rposition(|c| *c == b']')
            .map_or(b.len(), |at| at + 1);
        emit.span(Class::Meta, i, end);
        return (end, None);
    }
    if flags & RUST_SYNTAX != 0 {
        if let Some(token) = rust_token(b, i, emit) {
            return token;
        }
    }
    if flags & DECORATORS != 0 && c == b'@' && b.get(i + 1).copied().is_some_and(is_word_start) {
        let end = word_end(b, i + 1, b".");
        emit.span(Class::Meta, i, end);
        return (end, None);
    }
    if let Some(q) = spec.quotes.iter().position(|q| at(b, i, q.open.as_bytes())) {
        return string(spec, q, b, i, i, emit);
    }
    if starts_number(b, i) {
        let end = number_end(b, i);
        emit.span(Class::Number, i, end);
        return (end, None);
    }
    let dollar = flags & DOLLAR_WORDS != 0 && c == b'$';
    if !(is_word_start(c) || dollar) {
        return (i + 1, None);
    }
    let extra: &[u8] = match flags {
        f if f & DOLLAR_WORDS != 0 => b"$",
        f if f & TOML_SYNTAX != 0 => b"-",
        _ => b"",
    };
    let end = word_end(b, i, extra);
    let word = &line[i..end];
    if flags & STRING_PREFIXES != 0
        && word.len() <= 2
        && word.bytes().all(|c| b"rbfuRBFU".contains(&c))
    {
        if let Some(q) = spec
            .quotes
            .iter()
            .position(|q| at(b, end, q.open.as_bytes()))
        {
            return string(spec, q, b, i, end, emit);
        }
    }
    let any_case = flags & CASE_INSENSITIVE != 0;
    let definition = defines.take();
    let maybe_listed = in_filter(filter, word);
    let (class, end) = if maybe_listed && listed(spec.keywords, word, any_case) {
        if DEFINES_FUNCTION.contains(&word) {
            *defines = Some(Class::Function);
        } else if DEFINES_TYPE.contains(&word) {
            *defines = Some(Class::Type);
        }
        (Some(Class::Keyword), end)
    } else if maybe_listed && listed(&[spec.literals], word, any_case) {
        (Some(Class::Literal), end)
    } else if definition.is_some() {
        (definition, end)
    } else if (maybe_listed && listed(&[spec.types], word, any_case))
        || (flags & CAPITALIZED_TYPES != 0
            && word.as_bytes()[0].is_ascii_uppercase()
            && word.bytes().any(|c| c.is_ascii_lowercase()))
    {
        (Some(Class::Type), end)
    } else if flags & RUST_SYNTAX != 0 && b.get(end) == Some(&b'!') && b.get(end + 1) != Some(&b'=')
    {
        (Some(Class::Function), end + 1)
    } else if flags & CALLS != 0 && next_non_space(b, end) == Some(b'(') {
        (Some(Class::Function), end)
    } else if flags & TOML_SYNTAX != 0
        && next_non_space(b, end) == Some(b'=')
        && line[..i].trim().is_empty()
    {
        (Some(Class::Attr), end)
    } else {
        (None, end)
    };
    if let Some(class) = class {
        emit.span(class, i, end);
    }
    (end, None)
}

/// A string opened by `spec.quotes[q]` at `body` (its prefix from `start`).
fn string(
    spec: &Spec,
    q: usize,
    b: &[u8],
    start: usize,
    body: usize,
    emit: &mut Emit,
) -> (usize, Option<State>) {
    let quote = &spec.quotes[q];
    let (end, closed) = quote_end(
        b,
        body + quote.open.len(),
        quote.close.as_bytes(),
        quote.escapes,
    );
    let key = spec.flags & STRING_KEYS != 0 && closed && next_non_space(b, end) == Some(b':');
    emit.span(if key { Class::Attr } else { Class::Str }, start, end);
    let open = (!closed && quote.multiline).then_some(State::Quoted(q as u8));
    (end, open)
}

/// C: a directive (`#include`), and an included `<header>` as a string.
fn directive(b: &[u8], i: usize, emit: &mut Emit) -> usize {
    let mut j = i + 1;
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let name_start = j;
    let end = word_end(b, j, b"");
    emit.span(Class::Meta, i, end);
    let name = &b[name_start..end];
    if name == b"include" || name == b"import" {
        let mut j = end;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if b.get(j) == Some(&b'<') {
            if let Some(close) = b[j..].iter().position(|c| *c == b'>') {
                emit.span(Class::Str, j, j + close + 1);
                return j + close + 1;
            }
        }
    }
    end
}

/// Rust's own tokens at `i`: attributes, chars and lifetimes, raw and byte
/// strings. None when the token is an ordinary one.
fn rust_token(b: &[u8], i: usize, emit: &mut Emit) -> Option<(usize, Option<State>)> {
    let rest = &b[i..];
    if rest.starts_with(b"#[") || rest.starts_with(b"#![") {
        let end = rest
            .iter()
            .position(|c| *c == b']')
            .map_or(b.len(), |at| i + at + 1);
        emit.span(Class::Meta, i, end);
        return Some((end, None));
    }
    if rest[0] == b'\'' || rest.starts_with(b"b'") {
        let quote = if rest[0] == b'b' { i + 1 } else { i };
        return Some(char_or_lifetime(b, i, quote, emit));
    }
    let prefix = if rest.starts_with(b"br") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        0
    };
    if prefix > 0 && (i == 0 || !is_word_byte(b[i - 1])) {
        let hashes = rest[prefix..].iter().take_while(|c| **c == b'#').count();
        if rest.get(prefix + hashes) == Some(&b'"') && hashes < 256 {
            let (end, closed) = raw_string_end(b, i + prefix + hashes + 1, hashes as u8);
            emit.span(Class::Str, i, end);
            let open = (!closed).then_some(State::RawString(hashes as u8));
            return Some((end, open));
        }
    }
    if rest.starts_with(b"b\"") {
        let (end, closed) = quote_end(b, i + 2, b"\"", true);
        emit.span(Class::Str, i, end);
        return Some((end, (!closed).then_some(State::Quoted(0))));
    }
    None
}

/// `'x'`, `'\n'`, `b'x'` (from `start`, quote at `quote`) or a lifetime `'a`.
fn char_or_lifetime(
    b: &[u8],
    start: usize,
    quote: usize,
    emit: &mut Emit,
) -> (usize, Option<State>) {
    let body = quote + 1;
    let end = match b.get(body) {
        Some(b'\\') => b[body..]
            .iter()
            .take(12)
            .skip(2)
            .position(|c| *c == b'\'')
            .map(|at| body + 2 + at + 1),
        Some(&c) if b.get(body + char_len(c)) == Some(&b'\'') => Some(body + char_len(c) + 1),
        _ => None,
    };
    if let Some(end) = end {
        emit.span(Class::Str, start, end);
        return (end, None);
    }
    if b.get(body).copied().is_some_and(is_word_start) && start == quote {
        let end = word_end(b, body, b"");
        emit.span(Class::Meta, start, end);
        return (end, None);
    }
    (quote + 1, None)
}

/// Where a raw string whose body continues at `j` ends (`"` and `hashes` #).
fn raw_string_end(b: &[u8], mut j: usize, hashes: u8) -> (usize, bool) {
    let hashes = hashes as usize;
    while j < b.len() {
        if b[j] == b'"'
            && b[j + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == b'#')
                .count()
                == hashes
        {
            return (j + 1 + hashes, true);
        }
        j += 1;
    }
    (b.len(), false)
}

const SHELL_KEYWORDS: &[&str] = &[
    "alias", "break", "case", "continue", "declare", "do", "done", "elif", "else", "esac", "eval",
    "exec", "exit", "export", "fi", "for", "function", "if", "in", "local", "readonly", "return",
    "select", "set", "shift", "source", "then", "time", "trap", "unset", "until", "while",
];
/// Keywords after which a command may follow.
const SHELL_BEFORE_COMMAND: &[&str] =
    &["do", "elif", "else", "if", "then", "time", "until", "while"];
/// Bytes of a shell word besides letters and digits.
const SHELL_WORD: &[u8] = b"-./~+%:,@=[]*?!^";

/// One line of a shell script, from `i`: keywords, commands (the word in
/// command position), options, variables, strings and comments.
fn shell_line(state: State, line: &str, mut i: usize, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    if let State::Quoted(q) = state {
        let (end, closed) = quote_end(b, i, &[q], q == b'"');
        emit.span(Class::Str, i, end);
        if !closed {
            return state;
        }
        i = end;
    }
    let mut command = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => i += 1,
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b';' | b'(') => {
                emit.span(Class::Comment, i, b.len());
                return State::Normal;
            }
            b'"' | b'\'' => {
                let (end, closed) = quote_end(b, i + 1, &[c], c == b'"');
                emit.span(Class::Str, i, end);
                if !closed {
                    return State::Quoted(c);
                }
                command = false;
                i = end;
            }
            b'$' => {
                let end = match b.get(i + 1) {
                    Some(b'{') => b[i..]
                        .iter()
                        .position(|c| *c == b'}')
                        .map_or(b.len(), |at| i + at + 1),
                    Some(b'(') => {
                        command = true;
                        i += 2;
                        continue;
                    }
                    Some(&c) if is_word_start(c) => word_end(b, i + 1, b""),
                    Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(c) => i + 2,
                    _ => i + 1,
                };
                if end > i + 1 {
                    emit.span(Class::Var, i, end);
                }
                command = false;
                i = end;
            }
            b'|' | b'&' | b';' | b'(' | b'`' => {
                command = true;
                i += 1;
            }
            c if is_word_byte(c) || SHELL_WORD.contains(&c) => {
                let end = word_end(b, i, SHELL_WORD);
                let word = &line[i..end];
                let name_end = word_end(b, i, b"");
                let assignment =
                    command && is_word_start(c) && b.get(name_end) == Some(&b'=') && name_end > i;
                if assignment {
                    emit.span(Class::Var, i, name_end);
                } else if in_sorted(SHELL_KEYWORDS, word) {
                    emit.span(Class::Keyword, i, end);
                    command = SHELL_BEFORE_COMMAND.contains(&word);
                } else if word.bytes().all(|c| c.is_ascii_digit()) {
                    emit.span(Class::Number, i, end);
                    command = false;
                } else if command {
                    emit.span(Class::Function, i, end);
                    command = false;
                } else if c == b'-' {
                    emit.span(Class::Attr, i, end);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    State::Normal
}

/// A shell session: a `$ ` prompt line is a command (as are the lines a
/// command's open string continues on), the rest is output, left plain.
fn console_line(state: State, line: &str, emit: &mut Emit) -> State {
    if state != State::Normal {
        return shell_line(state, line, 0, emit);
    }
    if line.starts_with("$ ") || line == "$" {
        emit.span(Class::Meta, 0, 1);
        return shell_line(State::Normal, line, 1, emit);
    }
    State::Normal
}

/// One line of HTML or XML: tags, attributes, their values, comments and
/// entities. Script and style contents stay plain.
fn markup_line(mut state: State, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let mut i = 0;
    let mut after_equals = false;
    while i < b.len() {
        let c = b[i];
        match state {
            State::Comment(_) => {
                let (end, closed) = quote_end(b, i, b"-->", false);
                emit.span(Class::Comment, i, end);
                if closed {
                    state = State::Normal;
                }
                i = end;
            }
            State::TagValue(q) => {
                let (end, closed) = quote_end(b, i, &[q], false);
                emit.span(Class::Str, i, end);
                if closed {
                    state = State::InTag;
                }
                i = end;
            }
            State::InTag => match c {
                b' ' | b'\t' | b'=' => {
                    // A value follows `=`, maybe after spaces.
                    after_equals |= c == b'=';
                    i += 1;
                }
                b'>' => {
                    emit.span(Class::Tag, i, i + 1);
                    state = State::Normal;
                    i += 1;
                }
                b'/' if b.get(i + 1) == Some(&b'>') => {
                    emit.span(Class::Tag, i, i + 2);
                    state = State::Normal;
                    i += 2;
                }
                b'"' | b'\'' => {
                    let (end, closed) = quote_end(b, i + 1, &[c], false);
                    emit.span(Class::Str, i, end);
                    if !closed {
                        state = State::TagValue(c);
                    }
                    after_equals = false;
                    i = end;
                }
                _ => {
                    let mut end = i;
                    while end < b.len()
                        && !matches!(b[end], b' ' | b'\t' | b'=' | b'>' | b'"' | b'\'')
                        && !(b[end] == b'/' && b.get(end + 1) == Some(&b'>'))
                    {
                        end += 1;
                    }
                    let end = end.max(i + char_len(c)).min(b.len());
                    let class = if after_equals {
                        Class::Str
                    } else {
                        Class::Attr
                    };
                    emit.span(class, i, end);
                    after_equals = false;
                    i = end;
                }
            },
            _ => match c {
                b'<' if b[i..].starts_with(b"<!--") => {
                    let (end, closed) = quote_end(b, i + 4, b"-->", false);
                    emit.span(Class::Comment, i, end);
                    if !closed {
                        state = State::Comment(1);
                    }
                    i = end;
                }
                b'<' if matches!(b.get(i + 1), Some(b'!' | b'?')) => {
                    let end = b[i..]
                        .iter()
                        .position(|c| *c == b'>')
                        .map_or(b.len(), |at| i + at + 1);
                    emit.span(Class::Meta, i, end);
                    i = end;
                }
                b'<' => {
                    let name = if b.get(i + 1) == Some(&b'/') {
                        i + 2
                    } else {
                        i + 1
                    };
                    if b.get(name).is_some_and(u8::is_ascii_alphabetic) {
                        let end = word_end(b, name, b"-:.");
                        emit.span(Class::Tag, i, end);
                        state = State::InTag;
                        after_equals = false;
                        i = end;
                    } else {
                        i += 1;
                    }
                }
                b'&' => {
                    let end = word_end(b, i + 1, b"#");
                    if b.get(end) == Some(&b';') && end > i + 1 && end - i < 32 {
                        emit.span(Class::Literal, i, end + 1);
                        i = end + 1;
                    } else {
                        i += 1;
                    }
                }
                _ => i += 1,
            },
        }
    }
    state
}

/// One line of CSS: selectors (outside braces), properties and values
/// (inside), at-rules, numbers with units, colours, strings, comments.
fn css_line(mut state: State, depth: &mut u32, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let mut i = 0;
    if let State::Comment(_) = state {
        let (end, closed) = quote_end(b, 0, b"*/", false);
        emit.span(Class::Comment, 0, end);
        if !closed {
            return state;
        }
        state = State::Normal;
        i = end;
    }
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'/' if next == Some(b'*') => {
                let (end, closed) = quote_end(b, i + 2, b"*/", false);
                emit.span(Class::Comment, i, end);
                if !closed {
                    return State::Comment(1);
                }
                i = end;
            }
            b'"' | b'\'' => {
                let (end, _) = quote_end(b, i + 1, &[c], true);
                emit.span(Class::Str, i, end);
                i = end;
            }
            b'{' => {
                *depth = depth.saturating_add(1);
                i += 1;
            }
            b'}' => {
                *depth = depth.saturating_sub(1);
                i += 1;
            }
            b'@' | b'!' if next.is_some_and(|c| c.is_ascii_alphabetic()) => {
                let end = word_end(b, i + 1, b"-");
                emit.span(Class::Keyword, i, end);
                i = end;
            }
            b'#' if next.is_some_and(is_word_byte) => {
                let end = word_end(b, i + 1, b"-");
                let class = if *depth > 0 {
                    Class::Number
                } else {
                    Class::Type
                };
                emit.span(class, i, end);
                i = end;
            }
            b'.' if *depth == 0 && next.is_some_and(|c| is_word_start(c) || c == b'-') => {
                let end = word_end(b, i + 1, b"-");
                emit.span(Class::Type, i, end);
                i = end;
            }
            b':' if *depth == 0 => {
                let name = if next == Some(b':') { i + 2 } else { i + 1 };
                let end = word_end(b, name, b"-");
                emit.span(Class::Meta, i, end);
                i = end.max(i + 1);
            }
            _ if starts_number(b, i)
                || (matches!(c, b'-' | b'+') && next.is_some_and(|c| c.is_ascii_digit())) =>
            {
                let mut end = number_end(b, i + 1);
                if b.get(end) == Some(&b'%') {
                    end += 1;
                }
                emit.span(Class::Number, i, end);
                i = end;
            }
            _ if is_word_start(c)
                || (c == b'-' && next.is_some_and(|c| is_word_start(c) || c == b'-')) =>
            {
                let end = word_end(b, i, b"-");
                let class = if *depth == 0 {
                    Some(Class::Tag)
                } else if next_non_space(b, end) == Some(b':') {
                    Some(Class::Attr)
                } else if b.get(end) == Some(&b'(') {
                    Some(Class::Function)
                } else {
                    None
                };
                if let Some(class) = class {
                    emit.span(class, i, end);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    state
}

/// One line of YAML: keys, scalars by kind, anchors, tags, comments, and the
/// indented lines of a `|` or `>` block as a string.
fn yaml_line(state: State, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let indent = b.iter().take_while(|c| **c == b' ').count();
    if let State::BlockScalar(parent) = state {
        if line.trim().is_empty() {
            return state;
        }
        if indent as u32 > parent {
            emit.span(Class::Str, indent, b.len());
            return state;
        }
    }
    let rest = &line[indent..];
    if rest.starts_with('#') {
        emit.span(Class::Comment, indent, b.len());
        return State::Normal;
    }
    let mut i = indent;
    if rest == "---" || rest.starts_with("--- ") || rest == "..." {
        emit.span(Class::Meta, i, i + 3);
        i += 3;
    }
    while b[i..].starts_with(b"- ") || &b[i..] == b"-" {
        i += 1;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
    }
    let key_column = i;
    if let Some(colon) = yaml_key_end(b, i) {
        emit.span(Class::Attr, i, colon);
        i = colon + 1;
    }
    yaml_value(line, i, key_column, emit)
}

/// The colon ending a mapping key that starts at `i`, if one does.
fn yaml_key_end(b: &[u8], i: usize) -> Option<usize> {
    let ends_key =
        |j: usize| b.get(j) == Some(&b':') && matches!(b.get(j + 1), None | Some(b' ' | b'\t'));
    match *b.get(i)? {
        q @ (b'"' | b'\'') => {
            let (end, closed) = quote_end(b, i + 1, &[q], q == b'"');
            (closed && ends_key(end)).then_some(end)
        }
        b'[' | b'{' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' => None,
        _ => (i..b.len())
            .take_while(|&j| !(b[j] == b'#' && j > 0 && b[j - 1] == b' '))
            .find(|&j| ends_key(j)),
    }
}

const YAML_LITERALS: &[&str] = &[
    "FALSE", "False", "NULL", "No", "Null", "TRUE", "True", "Yes", "false", "no", "null", "off",
    "on", "true", "yes", "~",
];

/// The values on a YAML line from `i`.
fn yaml_value(line: &str, mut i: usize, key_column: usize, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'[' | b']' | b'{' | b'}' | b',' => i += 1,
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t') => {
                emit.span(Class::Comment, i, b.len());
                return State::Normal;
            }
            b'"' | b'\'' => {
                let (end, _) = quote_end(b, i + 1, &[c], c == b'"');
                emit.span(Class::Str, i, end);
                i = end;
            }
            b'&' | b'*' | b'!' if b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) => {
                let mut end = i + 1;
                while end < b.len() && !matches!(b[end], b' ' | b'\t' | b',' | b']' | b'}') {
                    end += 1;
                }
                let class = if c == b'!' { Class::Type } else { Class::Var };
                emit.span(class, i, end);
                i = end;
            }
            b'|' | b'>'
                if b[i + 1..]
                    .iter()
                    .all(|c| matches!(c, b'-' | b'+' | b'0'..=b'9' | b' ')) =>
            {
                emit.span(Class::Meta, i, b.len());
                return State::BlockScalar(key_column as u32);
            }
            _ => {
                let mut end = i;
                while end < b.len()
                    && !matches!(b[end], b',' | b']' | b'}')
                    && !(b[end] == b'#' && matches!(b[end - 1], b' ' | b'\t'))
                {
                    end += 1;
                }
                // Not `trim_end`: a no-break space is part of the scalar.
                let scalar = line[i..end].trim_end_matches([' ', '\t']);
                let end = i + scalar.len();
                let class = if YAML_LITERALS.contains(&scalar) {
                    Class::Literal
                } else if yaml_number(scalar) {
                    Class::Number
                } else {
                    Class::Str
                };
                emit.span(class, i, end);
                i = end.max(i + char_len(c));
            }
        }
    }
    State::Normal
}

/// Whether a plain YAML scalar reads as a number.
fn yaml_number(scalar: &str) -> bool {
    let digits = scalar.trim_start_matches(['-', '+']);
    digits.bytes().next().is_some_and(|c| c.is_ascii_digit())
        && number_end(digits.as_bytes(), 0) == digits.len()
        && !digits.bytes().any(|c| {
            c.is_ascii_alphabetic() && !matches!(c, b'e' | b'E' | b'x' | b'o' | b'a'..=b'f')
        })
}

/// One line of a unified diff: added, deleted, headers and hunk markers.
fn diff_line(line: &str, emit: &mut Emit) -> State {
    let headers = ["+++", "---", "@@", "diff ", "index "];
    let class = if headers.iter().any(|h| line.starts_with(h)) {
        Some(Class::Meta)
    } else if line.starts_with('+') {
        Some(Class::Added)
    } else if line.starts_with('-') {
        Some(Class::Deleted)
    } else if line.starts_with('\\') {
        Some(Class::Comment)
    } else {
        None
    };
    if let Some(class) = class {
        emit.span(class, 0, line.len());
    }
    State::Normal
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `code` highlighted as `info`, line by line.
    fn html(info: &str, code: &str) -> String {
        let mut h = LineHighlighter::for_info(info);
        let mut out = String::new();
        for line in code.split('\n') {
            h.push_line(line, &mut out);
            out.push('\n');
        }
        out.pop();
        out
    }

    /// The spans of `code` highlighted as `info`: (class, text as written).
    fn spans(info: &str, code: &str) -> Vec<(String, String)> {
        let html = html(info, code);
        html.split("<span class=\"")
            .skip(1)
            .map(|rest| {
                let (class, rest) = rest.split_once("\">").expect("a span's class");
                let text = rest.split("</span>").next().expect("a span's text");
                (class.to_owned(), unescape(text))
            })
            .collect()
    }

    fn unescape(html: &str) -> String {
        html.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    }

    /// The text of highlighted HTML, tags removed and entities decoded.
    fn text_of(html: &str) -> String {
        let mut text = String::new();
        let mut rest = html;
        while let Some(open) = rest.find('<') {
            text.push_str(&rest[..open]);
            rest = &rest[open + rest[open..].find('>').expect("a closed tag") + 1..];
        }
        text.push_str(rest);
        unescape(&text)
    }

    #[track_caller]
    fn assert_spans(info: &str, code: &str, expected: &[(&str, &str)]) {
        let found = spans(info, code);
        for (class, text) in expected {
            assert!(
                found.iter().any(|(c, t)| c == class && t == text),
                "{info}: no {class} {text:?} in {found:?}\n{}",
                html(info, code)
            );
        }
    }

    #[test]
    fn classes_are_named_by_their_index() {
        let all = [
            Class::Keyword,
            Class::Type,
            Class::Literal,
            Class::Number,
            Class::Str,
            Class::Comment,
            Class::Function,
            Class::Meta,
            Class::Tag,
            Class::Attr,
            Class::Var,
            Class::Added,
            Class::Deleted,
        ];
        assert_eq!(all.len(), HIGHLIGHT_CLASSES.len());
        for class in all {
            assert!(class.name().starts_with("hl-"));
        }
    }

    #[test]
    fn keyword_lists_are_sorted_for_binary_search() {
        let specs = [
            &RUST,
            &PYTHON,
            &JAVASCRIPT,
            &TYPESCRIPT,
            &JSON,
            &C,
            &CPP,
            &GO,
            &JAVA,
            &SQL,
            &TOML,
        ];
        let sorted = |list: &[&str]| list.windows(2).all(|w| w[0] < w[1]);
        for spec in specs {
            for list in spec.keywords.iter().chain([&spec.types, &spec.literals]) {
                assert!(sorted(list), "{list:?}");
            }
        }
        assert!(sorted(SHELL_KEYWORDS));
    }

    #[test]
    fn rust() {
        let code = "#[derive(Debug)]\nfn main() {\n    let x: u32 = 0x1F + 2_000; // sum\n    println!(\"{x} \\\" ok\");\n    let c = '\\n'; let s: &'static str = r#\"raw \"q\"\"#;\n    Some(Vec::new())\n}";
        assert_spans(
            "rust",
            code,
            &[
                ("hl-meta", "#[derive(Debug)]"),
                ("hl-kw", "fn"),
                ("hl-fn", "main"),
                ("hl-kw", "let"),
                ("hl-ty", "u32"),
                ("hl-num", "0x1F"),
                ("hl-num", "2_000"),
                ("hl-com", "// sum"),
                ("hl-fn", "println!"),
                ("hl-str", "\"{x} \\\" ok\""),
                ("hl-str", "'\\n'"),
                ("hl-meta", "'static"),
                ("hl-str", "r#\"raw \"q\"\"#"),
                ("hl-lit", "Some"),
                ("hl-ty", "Vec"),
                ("hl-fn", "new"),
            ],
        );
    }

    #[test]
    fn rust_block_comments_nest_across_lines() {
        let code = "/* outer /* inner */\nstill comment fn\n*/ fn after() {}";
        assert_spans(
            "rs",
            code,
            &[
                ("hl-com", "/* outer /* inner */"),
                ("hl-com", "still comment fn"),
                ("hl-com", "*/"),
                ("hl-kw", "fn"),
                ("hl-fn", "after"),
            ],
        );
        // Inside the comment nothing is a keyword: only the last `fn` is.
        let keywords = spans("rs", code)
            .into_iter()
            .filter(|(class, _)| class == "hl-kw")
            .count();
        assert_eq!(keywords, 1);
    }

    #[test]
    fn python() {
        let code = "@dataclass\nclass Point:\n    def norm(self) -> float:\n        return 1.5e-3 if self.x is None else f\"{self.x}\"  # done\ndoc = \"\"\"first\nsecond def\nthird\"\"\" + 'x'";
        assert_spans(
            "py",
            code,
            &[
                ("hl-meta", "@dataclass"),
                ("hl-kw", "class"),
                ("hl-ty", "Point"),
                ("hl-kw", "def"),
                ("hl-fn", "norm"),
                ("hl-ty", "float"),
                ("hl-num", "1.5e-3"),
                ("hl-lit", "None"),
                ("hl-str", "f\"{self.x}\""),
                ("hl-com", "# done"),
                ("hl-str", "\"\"\"first"),
                ("hl-str", "second def"),
                ("hl-str", "third\"\"\""),
                ("hl-str", "'x'"),
            ],
        );
    }

    #[test]
    fn javascript_and_typescript() {
        let code = "const $el = document.querySelector(`#a\n${b}`); // c\nlet n = null, x = 42;";
        assert_spans(
            "js",
            code,
            &[
                ("hl-kw", "const"),
                ("hl-fn", "querySelector"),
                ("hl-str", "`#a"),
                ("hl-str", "${b}`"),
                ("hl-com", "// c"),
                ("hl-lit", "null"),
                ("hl-num", "42"),
            ],
        );
        assert_spans(
            "tsx",
            "interface User { name: string }\n/** doc\n * more */\nexport type Id = number;",
            &[
                ("hl-kw", "interface"),
                ("hl-ty", "User"),
                ("hl-ty", "string"),
                ("hl-com", "/** doc"),
                ("hl-com", " * more */"),
                ("hl-kw", "export"),
                ("hl-kw", "type"),
                ("hl-ty", "Id"),
                ("hl-ty", "number"),
            ],
        );
    }

    #[test]
    fn json() {
        assert_spans(
            "json",
            "{\"name\": \"pensive\", \"n\": -1.5, \"ok\": true, \"x\": null}",
            &[
                ("hl-attr", "\"name\""),
                ("hl-str", "\"pensive\""),
                ("hl-num", "1.5"),
                ("hl-lit", "true"),
                ("hl-lit", "null"),
            ],
        );
    }

    #[test]
    fn shell() {
        let code = "#!/bin/bash\nFOO=bar ls -la \"$HOME\" | grep -v x # note\nif [ -n \"$1\" ]; then echo ${PATH} $?; fi\necho 'multi\nline'";
        assert_spans(
            "sh",
            code,
            &[
                ("hl-com", "#!/bin/bash"),
                ("hl-var", "FOO"),
                ("hl-fn", "ls"),
                ("hl-attr", "-la"),
                ("hl-str", "\"$HOME\""),
                ("hl-fn", "grep"),
                ("hl-com", "# note"),
                ("hl-kw", "if"),
                ("hl-kw", "then"),
                ("hl-fn", "echo"),
                ("hl-var", "${PATH}"),
                ("hl-var", "$?"),
                ("hl-kw", "fi"),
                ("hl-str", "'multi"),
                ("hl-str", "line'"),
            ],
        );
        assert_eq!(LineHighlighter::for_info("zsh").label(), Some("Zsh"));
    }

    #[test]
    fn console_highlights_commands_and_leaves_output_plain() {
        let code = "$ cargo test --release\nrunning 3 tests\ntest ok";
        assert_spans(
            "console",
            code,
            &[
                ("hl-meta", "$"),
                ("hl-fn", "cargo"),
                ("hl-attr", "--release"),
            ],
        );
        assert!(html("console", code).ends_with("\nrunning 3 tests\ntest ok"));
    }

    #[test]
    fn c_and_cpp() {
        let code = "#include <stdio.h>\n/* block\n   comment */\nint main(void) { printf(\"%d\\n\", 42); return 0; }";
        assert_spans(
            "c",
            code,
            &[
                ("hl-meta", "#include"),
                ("hl-str", "<stdio.h>"),
                ("hl-com", "/* block"),
                ("hl-com", "   comment */"),
                ("hl-ty", "int"),
                ("hl-fn", "main"),
                ("hl-ty", "void"),
                ("hl-fn", "printf"),
                ("hl-str", "\"%d\\n\""),
                ("hl-num", "42"),
                ("hl-kw", "return"),
            ],
        );
        assert_spans(
            "cpp",
            "template <typename T> class Box { std::vector<T> v = nullptr; };",
            &[
                ("hl-kw", "template"),
                ("hl-kw", "typename"),
                ("hl-kw", "class"),
                ("hl-ty", "Box"),
                ("hl-lit", "nullptr"),
            ],
        );
        assert_eq!(LineHighlighter::for_info("c++").label(), Some("C++"));
    }

    #[test]
    fn go() {
        let code = "func main() {\n\tmsg := `raw\nstring`\n\tvar err error = nil // none\n\tfmt.Println(msg, 'x', 3.14)\n}";
        assert_spans(
            "golang",
            code,
            &[
                ("hl-kw", "func"),
                ("hl-fn", "main"),
                ("hl-str", "`raw"),
                ("hl-str", "string`"),
                ("hl-kw", "var"),
                ("hl-ty", "error"),
                ("hl-lit", "nil"),
                ("hl-com", "// none"),
                ("hl-fn", "Println"),
                ("hl-str", "'x'"),
                ("hl-num", "3.14"),
            ],
        );
    }

    #[test]
    fn java() {
        let code = "@Override\npublic static void main(String[] args) {\n  String s = \"\"\"\n    text block\n    \"\"\"; // end\n}";
        assert_spans(
            "java",
            code,
            &[
                ("hl-meta", "@Override"),
                ("hl-kw", "public"),
                ("hl-kw", "static"),
                ("hl-ty", "void"),
                ("hl-fn", "main"),
                ("hl-ty", "String"),
                ("hl-str", "\"\"\""),
                ("hl-str", "    text block"),
                ("hl-str", "    \"\"\""),
                ("hl-com", "// end"),
            ],
        );
    }

    #[test]
    fn sql_in_any_case() {
        let code = "SELECT name, count(*) FROM users -- all\nwhere id = 'it''s' AND age > 18 /* x */ LIMIT NULL;";
        assert_spans(
            "sql",
            code,
            &[
                ("hl-kw", "SELECT"),
                ("hl-fn", "count"),
                ("hl-kw", "FROM"),
                ("hl-com", "-- all"),
                ("hl-kw", "where"),
                ("hl-str", "'it'"),
                ("hl-kw", "AND"),
                ("hl-num", "18"),
                ("hl-com", "/* x */"),
                ("hl-lit", "NULL"),
            ],
        );
    }

    #[test]
    fn html_and_xml() {
        let code = "<!DOCTYPE html>\n<a href=\"https://e.com\" class='x'\n   data-x=1>Tom &amp; Jerry</a>\n<!-- a\ncomment -->";
        assert_spans(
            "html",
            code,
            &[
                ("hl-meta", "<!DOCTYPE html>"),
                ("hl-tag", "<a"),
                ("hl-attr", "href"),
                ("hl-str", "\"https://e.com\""),
                ("hl-attr", "class"),
                ("hl-str", "'x'"),
                ("hl-attr", "data-x"),
                ("hl-str", "1"),
                ("hl-tag", ">"),
                ("hl-lit", "&amp;"),
                ("hl-tag", "</a"),
                ("hl-com", "<!-- a"),
                ("hl-com", "comment -->"),
            ],
        );
        assert_eq!(LineHighlighter::for_info("xml").label(), Some("XML"));
    }

    #[test]
    fn css() {
        let code = "@media (max-width: 600px) {\n.card > a:hover, #main {\n  color: #fff !important; /* c */\n  margin: -0.5em calc(100% - 2px);\n} }";
        assert_spans(
            "css",
            code,
            &[
                ("hl-kw", "@media"),
                ("hl-num", "600px"),
                ("hl-attr", "color"),
                ("hl-num", "#fff"),
                ("hl-kw", "!important"),
                ("hl-com", "/* c */"),
                ("hl-attr", "margin"),
                ("hl-num", "-0.5em"),
                ("hl-fn", "calc"),
                ("hl-num", "100%"),
            ],
        );
        assert_spans(
            "css",
            ".card > a:hover, #main { color: red }",
            &[
                ("hl-ty", ".card"),
                ("hl-tag", "a"),
                ("hl-meta", ":hover"),
                ("hl-ty", "#main"),
                ("hl-attr", "color"),
            ],
        );
    }

    #[test]
    fn yaml() {
        let code = "---\nname: pensive # app\nreplicas: 3\nenabled: true\nitems:\n  - id: &base 'one'\n    note: |\n      kept: as text\n      # not a comment\n    after: ~";
        assert_spans(
            "yml",
            code,
            &[
                ("hl-meta", "---"),
                ("hl-attr", "name"),
                ("hl-str", "pensive"),
                ("hl-com", "# app"),
                ("hl-num", "3"),
                ("hl-lit", "true"),
                ("hl-attr", "id"),
                ("hl-var", "&base"),
                ("hl-str", "'one'"),
                ("hl-meta", "|"),
                ("hl-str", "kept: as text"),
                ("hl-str", "# not a comment"),
                ("hl-attr", "after"),
                ("hl-lit", "~"),
            ],
        );
    }

    #[test]
    fn toml() {
        let code = "[package]\nname = \"pensive\" # the name\nserde-json = { version = \"1\" }\nlicense = '''\nMIT\n'''\nopt = true\n[[bin]]\nn = 1_000";
        assert_spans(
            "toml",
            code,
            &[
                ("hl-meta", "[package]"),
                ("hl-attr", "name"),
                ("hl-str", "\"pensive\""),
                ("hl-com", "# the name"),
                ("hl-attr", "serde-json"),
                ("hl-str", "'''"),
                ("hl-str", "MIT"),
                ("hl-lit", "true"),
                ("hl-meta", "[[bin]]"),
                ("hl-num", "1_000"),
            ],
        );
    }

    #[test]
    fn diff() {
        let code = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n context\n-old\n+new";
        assert_spans(
            "patch",
            code,
            &[
                ("hl-meta", "--- a/x"),
                ("hl-meta", "+++ b/x"),
                ("hl-meta", "@@ -1,2 +1,2 @@"),
                ("hl-del", "-old"),
                ("hl-add", "+new"),
            ],
        );
    }

    #[test]
    fn unknown_languages_stay_plain_and_escaped_with_their_word_as_label() {
        let h = LineHighlighter::for_info("brainfuck extra words");
        assert_eq!(h.label(), Some("brainfuck"));
        assert_eq!(h.language(), "brainfuck");
        assert_eq!(
            html("brainfuck", "fn main() { \"x\" } <b>&"),
            "fn main() { \"x\" } &lt;b&gt;&amp;"
        );
        let none = LineHighlighter::for_info("");
        assert_eq!((none.label(), none.language()), (None, ""));
        assert_eq!(LineHighlighter::for_info("RUST").label(), Some("Rust"));
        assert_eq!(LineHighlighter::for_info("text").label(), Some("Text"));
        // A word that could carry markup or classes is no label at all.
        let hostile = LineHighlighter::for_info("x\"onclick");
        assert_eq!((hostile.label(), hostile.language()), (None, ""));
    }

    const ALL_INFOS: &[&str] = &[
        "rust", "python", "js", "ts", "json", "bash", "console", "c", "cpp", "go", "java", "sql",
        "html", "css", "yaml", "toml", "diff", "unknown", "",
    ];

    #[test]
    fn hostile_code_stays_escaped_in_every_language() {
        let hostile = "</span><script>alert(1)</script><span class=\"hl-kw\" onclick=x>&lt;";
        for info in ALL_INFOS {
            for code in [
                hostile.to_owned(),
                format!("\"{hostile}\""),
                format!("// {hostile}"),
                format!("# {hostile}"),
                format!("<a title=\"{hostile}\">"),
                format!("key: {hostile}"),
            ] {
                let out = html(info, &code);
                assert!(!out.contains("<script"), "{info}: {out}");
                assert!(!out.contains("</span><script"), "{info}: {out}");
                assert!(!out.contains("onclick=x>"), "{info}: {out}");
                assert_eq!(text_of(&out), code, "{info}");
            }
        }
    }

    /// Pieces of every language's syntax, with multi-byte characters.
    const PIECES: &[&str] = &[
        "\"", "'", "`", "\"\"\"", "'''", "/*", "*/", "//", "#", "--", "<!--", "-->", "<", ">", "/",
        "&", "&amp;", ";", ":", "=", "{", "}", "(", ")", "[", "]", "#[", "r#\"", "\"#", "b'", "'a",
        "\\", "$", "${", "$(", "@", "!", "|", "-", "+", "@@", "0x", "1", "2.5e-3", " ", "\t", "\n",
        "fn", "def", "let", "select", "é", "日本", "🦀", "\u{a0}", "x", "Foo", "- ", ": |", "&a",
        "*", "%", "\r",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]
        /// Whatever the code, in every language: no panic, every byte comes
        /// back as written, and the only markup is flat `hl-` spans.
        #[test]
        fn any_code_comes_back_as_written_inside_flat_known_spans(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..40)
        ) {
            let code = pieces.concat();
            for info in ALL_INFOS {
                let out = html(info, &code);
                proptest::prop_assert_eq!(text_of(&out), code.clone(), "{}: {}", info, out);
                let mut open = false;
                for tag in out.split('<').skip(1).map(|rest| &rest[..rest.find('>').unwrap_or(0)]) {
                    if tag == "/span" {
                        proptest::prop_assert!(open, "{}: {}", info, out);
                        open = false;
                    } else {
                        let class = tag.strip_prefix("span class=\"").and_then(|c| c.strip_suffix('"'));
                        proptest::prop_assert!(
                            !open && class.is_some_and(|c| HIGHLIGHT_CLASSES.contains(&c)),
                            "{}: <{}> in {}", info, tag, out
                        );
                        open = true;
                    }
                }
                proptest::prop_assert!(!open);
            }
        }
    }

    #[test]
    fn a_preview_shows_the_line_as_pushed_and_keeps_nothing() {
        let mut h = LineHighlighter::for_info("rust");
        let (mut previewed, mut pushed) = (String::new(), String::new());
        h.preview_line("/* still open", &mut previewed);
        h.preview_line("/* still open", &mut String::new());
        let mut next = String::new();
        h.push_line("fn x", &mut next);
        assert_eq!(
            next,
            "<span class=\"hl-kw\">fn</span> <span class=\"hl-fn\">x</span>"
        );
        h.push_line("/* still open", &mut pushed);
        assert_eq!(previewed, pushed);
        assert_eq!(h.state, State::Comment(1));
        assert_eq!((h.label(), h.language()), (Some("Rust"), "rust"));
    }

    #[test]
    fn a_line_costs_the_same_after_any_amount_of_code() {
        // What a line carries to the next is a small fixed state, not text.
        assert!(std::mem::size_of::<State>() <= 8);
        let mut h = LineHighlighter::for_info("rust");
        let mut out = String::new();
        h.push_line("/* a comment that stays open", &mut out);
        for _ in 0..10_000 {
            h.push_line("more comment", &mut out);
        }
        let mut last = String::new();
        h.push_line("*/ fn x", &mut last);
        assert_eq!(
            last,
            "<span class=\"hl-com\">*/</span> <span class=\"hl-kw\">fn</span> <span class=\"hl-fn\">x</span>"
        );
    }
}
