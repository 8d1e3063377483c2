//! The built-in tools, so the tool loop works with no setup: `calculate`
//! (exact arithmetic by fend-core: rationals, big integers, units) and
//! `current_time`. Neither reads or writes anything outside the process, so
//! neither needs the user's approval.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::turn::tool::ToolSpec;

/// The server name of the built-in tools.
pub const SERVER: &str = "builtin";

/// Longest expression `calculate` takes.
const MAX_EXPRESSION: usize = 2_000;

/// How long one calculation may run before it is interrupted.
const CALCULATION_TIME: Duration = Duration::from_secs(2);

/// The built-in tools' specs (names without the server prefix).
pub(crate) fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "calculate".into(),
            description: "Evaluates an arithmetic expression exactly (fractions, big integers, \
                          powers, roots, units such as `5 km to miles`) and returns the result."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "expression": {"type": "string", "description": "For example `(17 * 23) / 4`"}
                },
                "required": ["expression"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "current_time".into(),
            description: "Returns the current date and time in UTC (ISO 8601).".into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        },
    ]
}

/// Runs built-in tool `tool` on `arguments`: `Ok` output or `Err` message
/// for the model.
pub fn call(tool: &str, arguments: &Value) -> Result<String, String> {
    match tool {
        "calculate" => {
            let expression = arguments
                .get("expression")
                .and_then(Value::as_str)
                .ok_or("calculate needs a string argument `expression`")?;
            calculate(expression)
        }
        "current_time" => Ok(current_time(SystemTime::now())),
        other => Err(format!("there is no built-in tool named `{other}`")),
    }
}

/// Stops fend once the calculation has had its time.
struct Deadline(Instant);

impl fend_core::Interrupt for Deadline {
    fn should_interrupt(&self) -> bool {
        Instant::now() >= self.0
    }
}

/// `expression` evaluated exactly (`2/3 + 1/6` is `5/6`, shown as fend
/// writes it: `approx. 0.8333333333` for a repeating decimal).
pub fn calculate(expression: &str) -> Result<String, String> {
    if expression.len() > MAX_EXPRESSION {
        return Err(format!(
            "the expression is longer than {MAX_EXPRESSION} characters"
        ));
    }
    if expression.trim().is_empty() {
        return Err("the expression is empty".into());
    }
    let mut context = fend_core::Context::new();
    let deadline = Deadline(Instant::now() + CALCULATION_TIME);
    match fend_core::evaluate_with_interrupt(expression, &mut context, &deadline) {
        Ok(result) => Ok(result.get_main_result().to_owned()),
        Err(_) if fend_core::Interrupt::should_interrupt(&deadline) => Err(format!(
            "the calculation took longer than {}s",
            CALCULATION_TIME.as_secs()
        )),
        Err(message) => Err(message),
    }
}

/// `now` in UTC as ISO 8601 (`2026-12-03T23:41:05Z`).
pub fn current_time(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 as a (year, month, day) of the proleptic
/// Gregorian calendar (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(calculate("17 * 23").unwrap(), "391");
        assert_eq!(calculate("0.1 + 0.2").unwrap(), "0.3");
        assert_eq!(
            calculate("2^100").unwrap(),
            "1267650600228229401496703205376"
        );
        assert!(calculate("1/0").is_err());
        assert!(calculate("").is_err());
        assert!(calculate(&"1+".repeat(2_000)).is_err(), "too long");
    }

    #[test]
    fn calls_check_their_arguments() {
        assert_eq!(
            call("calculate", &json!({"expression": "6*7"})).unwrap(),
            "42"
        );
        assert!(call("calculate", &json!({})).is_err());
        assert!(call("shell", &json!({})).is_err());
    }

    #[test]
    fn time_is_written_in_iso_8601_utc() {
        let at = UNIX_EPOCH + Duration::from_secs(1_796_341_265); // 2026-12-03T23:41:05Z
        assert_eq!(current_time(at), "2026-12-03T23:41:05Z");
        assert_eq!(current_time(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            current_time(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
    }
}
