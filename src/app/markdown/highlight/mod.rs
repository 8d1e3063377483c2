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
//! Adding a language: a `Spec` table in `languages/` when the shared
//! scanner fits it, else a scanner of its own beside the others; then its
//! fence words in `languages::LANGUAGES`.

mod css;
mod diff;
mod emit;
mod languages;
mod lex;
mod markup;
mod scanner;
mod shell;
mod spec;
mod yaml;

use std::borrow::Cow;

use css::css_line;
use diff::diff_line;
use emit::Emit;
use languages::LANGUAGES;
use markup::markup_line;
use scanner::code_line;
use shell::{console_line, shell_line};
use spec::{word_filter, Filter, Spec};
use yaml::yaml_line;

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
        let mut emit = Emit::new(line, out);
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

#[cfg(test)]
mod tests {
    use super::languages::c_family::{C, CPP, GO, JAVA, RUST};
    use super::languages::data::{JSON, SQL, TOML};
    use super::languages::scripting::{JAVASCRIPT, PYTHON, TYPESCRIPT};
    use super::shell::SHELL_KEYWORDS;
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
