//! The fixed texts the scenarios play (reasoning, answers, hostile Markdown,
//! math and code), public so tests can compare what arrives with what was sent.

pub const REASONING: &str =
    "Let me think about this carefully. First, the key facts. Then, what follows from them.";
/// Reasoning titled the way OpenAI and Gemini title summaries, plus a `<topic>`.
pub const HEADLINES: &str = "**Reading the question**\nThe user wants a number with units.\n\
<topic>Checking the units</topic>\nConverting metres to feet, one step at a time.\n\
Multiplying by 3.28 and rounding.\nLooking again at the rounding.\n\
**Final check**\nEverything adds up, so I can answer now.\n";
pub const ANSWER: &str = "Here is the answer: **42**.";
/// `topic-tags`: reasoning in inline `<thinking>` tags, labelled with
/// shinychat-style `<topic>`s (the latest names the block), then the answer.
pub const TOPIC_TAGS: &str = "<thinking>\n<topic>Checking the units</topic>\n\
The question gives metres and wants feet.\n\n\
One metre is about 3.28 feet, so I multiply and round to one decimal.\n\n\
<topic>Writing the answer</topic>\n\
Lead with the number, then one line on how it was found.\n\
</thinking>\n\nIt is about **32.8 feet**: 10 m \u{d7} 3.28 ft/m.";
/// The answer after `hidden-reasoning`'s silence.
pub const HIDDEN_ANSWER: &str = "Worked it out privately: **42**.";
/// `math` reasoning: inline and display formulas in all four delimiters the
/// models write (`$…$`, `\(…\)`, `$$…$$`, `\[…\]`), and prices that stay text.
pub const MATH_REASONING: &str = "The roots of $ax^2 + bx + c = 0$ come from \
completing the square: \\(\\left(x + \\frac{b}{2a}\\right)^2 = \\frac{b^2 - 4ac}{4a^2}\\).\n\n\
Taking square roots:\n\n$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n\
and the sign of\n\n\\[\\Delta = b^2 - 4ac\\]\n\n\
decides the count. The price question is separate: $5 and $10 stay prices.\n";
/// `math` answer: the same four forms (a `cases` table in the last display),
/// and a price sentence ("$5-$10": no formula ends at a `$` a digit follows).
pub const MATH_ANSWER: &str = "For $ax^2 + bx + c = 0$ with \\(a \\neq 0\\), the roots are\n\n\
$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n\
How many are real depends on \\(\\Delta = b^2 - 4ac\\):\n\n\
\\[\nn = \\begin{cases} 2 & \\Delta > 0 \\\\ 1 & \\Delta = 0 \\\\ 0 & \\Delta < 0 \\end{cases}\n\\]\n\n\
A calculator costs $5-$10, a textbook $30.\n";
/// `code` reasoning: a fenced Rust sketch between sentences.
pub const CODE_REASONING: &str = "The same function in three languages. In Rust an \
iterator does it:\n\n```rust\nlet total: i32 = xs.iter().sum();\n```\n\n\
Then Python, and a shell pipeline for the command line.\n";
/// `code` answer: three fenced blocks (Rust, Python, Bash) with keywords,
/// strings, comments and numbers in each; the story copies the second.
pub const CODE_ANSWER: &str = "The sum of a list, three ways.\n\n\
```rust\n/// Adds up the numbers.\nfn sum(xs: &[i32]) -> i32 {\n    xs.iter().sum() // 0 when empty\n}\n```\n\n\
```python\ndef total(xs: list[int]) -> int:\n    \"\"\"Adds up the numbers.\"\"\"\n    return sum(xs, 0)  # built in\n```\n\n\
```bash\n# one per line, then add\necho \"1 2 3\" | tr ' ' '\\n' | paste -sd+ | bc\n```\n\n\
All three give 6 for 1, 2, 3.\n";
/// LaTeX written to attack the page, after `HOSTILE_MARKDOWN` in both parts of
/// `hostile-markdown`: links (`\href` to script, data: and tracking URLs,
/// `\url`), class, style and character commands, raw HTML in `\text` and as
/// the formula itself, in all four delimiters, and one harmless formula.
pub const HOSTILE_MATH: &str = "\nMath: $\\href{javascript:window.__pwned='href'}{click}$ \
\\(\\url{javascript:window.__pwned='url'}\\) $\\htmlClass{copy-button}{x}$ \
\\[\\style{color:red}{y}\\] $\\unicode{x3C}script$ \
$\\text{<a href=javascript:alert(1) onclick=alert(2)>z</a>}$ \
$$\\href{data:text/html,<script>window.__pwned='data'</script>}{d}$$ and $x^2$ is fine.\n\n\
Raw: $<img src=x onerror=alert(3)>$ \\(\\text{<a href=\"javascript:alert(4)\">t</a>}\\) \
$\\href{https://tracker.invalid/math}{m}$ $$\\url{data:image/svg+xml,<svg onload=alert(5)>}$$ \
\\[\\htmlClass{code-copy}{c}\\] $\\unicode{x}$.\n";
/// Code blocks written to attack the page (`hostile-code`, both parts): fence
/// info strings that try to close the class attribute, open a script, name a
/// data: URL or an image, and HTML with a tracker, a handler and a script link
/// as the code itself. Kept out of `hostile-markdown`, whose Markdown export
/// story counts every tag in the export (code keeps its HTML as typed there).
pub const HOSTILE_CODE: &str = "Fences that attack the page:\n\n\
```\"><script>window.__pwned='fence'</script>\none\n```\n\n\
```data:text/html,<script>window.__pwned='data'</script>\ntwo\n```\n\n\
```js\" onclick=\"window.__pwned='attr'\nthree\n```\n\n\
```<img src=https://tracker.invalid/info.png onerror=alert(6)>\nfour\n```\n\n\
```html\n<img src=\"https://tracker.invalid/code.png\" onerror=\"window.__pwned='code'\">\n\
<a href=\"javascript:window.__pwned='codelink'\">five</a>\n```\n\nEnd.\n";
/// Markdown written to attack the page: a bold first line with a frame in it
/// (the thinking block's headline, and the export's `<summary>` label), raw
/// HTML, script-scheme links (plain,
/// entity-encoded, autolink), a tracking image, an aligned table (a style
/// attribute), a footnote label that names an app id, and one safe link.
/// Sent as both reasoning and answer; a Playwright story checks that none of it
/// runs, loads or breaks out.
pub const HOSTILE_MARKDOWN: &str =
    "**Framing <iframe src=\"https://tracker.invalid/frame\"></iframe>**\n\n\
Careful <script>window.__pwned = 'script'</script> \
and <img src=x onerror=\"window.__pwned = 'img'\">.\n\n\
[plain](javascript:window.__pwned='link') [encoded](&#106;avascript:window.__pwned='entity') \
<javascript:window.__pwned='autolink'>\n\n\
![tracker](https://tracker.invalid/pixel.png?leak=secret)\n\n\
[safe](https://example.com/docs) and a note[^app].\n\n\
| left | right |\n|:--|--:|\n| 1 | 2 |\n\n\
[^app]: The note.\n\nEnd.\n";

/// `half-written`'s answer.
pub const HALF_WRITTEN: &str = "First, **a claim in bold that is still being written** and \
then closed.\n\nThe area of a circle is $\\pi r^2$ for a radius $r$.\n\n\
```rust\nfn area(r: f64) -> f64 {\n    let pi = std::f64::consts::PI;\n    pi * r * r\n}\n```\n\n\
That is all.\n";

/// `cut-off`: an answer that stops mid-sentence at the output limit.
pub const CUT_ANSWER_START: &str =
    "Rayleigh scattering favours short wavelengths, so the sky looks blue. At sunset the light crosses";
/// `cut-off`, continued: the rest of that sentence and the answer's end.
pub const CUT_ANSWER_REST: &str = " more air, and the reds remain.";
