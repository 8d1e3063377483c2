//! Which scanner and label each fence word gets, and the tables of the
//! languages the shared scanner reads, by family, so that adding a language
//! touches one family's file and this list.

pub(super) mod c_family;
pub(super) mod data;
pub(super) mod scripting;

use super::Lang;
use c_family::{C, CPP, GO, JAVA, RUST};
use data::{JSON, SQL, TOML};
use scripting::{JAVASCRIPT, PYTHON, TYPESCRIPT};

/// Fence words, the label shown for them, and their scanner.
pub(super) const LANGUAGES: &[(&str, &str, Lang)] = &[
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
