//! Helpers shared by the benchmark commands that write `docs/benchmarks.md`.

use std::path::Path;
use std::time::SystemTime;

/// `3.05x`, or `12x` from ten on.
pub fn fmt_ratio(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}x")
    } else {
        format!("{r:.2}x")
    }
}

/// A duration in ns with a unit and three significant digits (the kit's
/// format, so its console lines and the report read alike).
pub use flexbuf_benchkit::fmt_ns as fmt_time;

/// `1234567` as `1,234,567`.
pub fn fmt_count(n: u64) -> String {
    let digits = n.to_string();
    let head = digits.len() % 3;
    let mut out = digits[..head].to_string();
    for group in digits.as_bytes()[head..].chunks(3) {
        if !out.is_empty() {
            out.push(',');
        }
        out.extend(group.iter().map(|&b| b as char));
    }
    out
}

/// Line range of the section under `heading`: from the heading to the next
/// `## ` heading (or the end).
pub fn section_range(lines: &[&str], heading: &str) -> Option<(usize, usize)> {
    let start = lines.iter().position(|l| l.trim_end() == heading)?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |i| start + 1 + i);
    Some((start, end))
}

/// Replaces the section under `heading` with `section`, or appends it;
/// everything else is kept.
pub fn splice_section(doc: &str, heading: &str, section: &str) -> String {
    if doc.trim().is_empty() {
        return format!(
            "# Benchmarks\n\nEvery speed claim of the project, as a ratio against a named \
             peer measured in the same run (see DESIGN.md, principle 6). Each section is \
             written by the command it names.\n\n{section}"
        );
    }
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let Some((start, end)) = section_range(&lines, heading) else {
        return format!("{}\n\n{section}", doc.trim_end());
    };
    let mut out: String = lines[..start].concat();
    out.push_str(section);
    if end < lines.len() {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(&lines[end..].concat());
    }
    out
}

/// The hand-written `### Notes` subsection of the section under `heading`,
/// if any: kept when a benchmark command rewrites the rest of the section.
pub fn notes_of(doc: &str, heading: &str) -> Option<String> {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let (start, end) = section_range(&lines, heading)?;
    let section = &lines[start..end];
    let from = section.iter().position(|l| l.trim_end() == "### Notes")?;
    let to = section[from + 1..]
        .iter()
        .position(|l| l.starts_with("### "))
        .map_or(section.len(), |i| from + 1 + i);
    Some(section[from..to].concat())
}

/// Rewrites the section under `heading` of the document at `doc_path` as
/// `body` followed by the section's hand-written `### Notes`, if it had any;
/// the rest of the document is kept.
pub fn write_section(doc_path: &Path, heading: &str, body: &str) -> crate::util::Result<()> {
    let old = std::fs::read_to_string(doc_path).unwrap_or_default();
    let mut section = format!("{}\n", body.trim_end());
    if let Some(notes) = notes_of(&old, heading) {
        section.push('\n');
        section.push_str(notes.trim_end());
        section.push('\n');
    }
    std::fs::write(doc_path, splice_section(&old, heading, &section))?;
    Ok(())
}

/// The 1-minute load average (Linux), to show how busy the shared machine was.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Today's date (UTC) as YYYY-MM-DD.
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Proleptic Gregorian date of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so leap days fall at the end of each 400-year era.
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
    fn a_rewritten_section_keeps_its_notes_and_the_rest() {
        let path = std::env::temp_dir().join(format!("flexbuf-report-{}.md", std::process::id()));
        std::fs::write(
            &path,
            "# B\n\n## A\n\nold\n\n### Notes\n\nkept\n\n## C\n\nc\n",
        )
        .unwrap();
        write_section(&path, "## A", "## A\n\nnew\n").unwrap();
        let doc = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            doc,
            "# B\n\n## A\n\nnew\n\n### Notes\n\nkept\n\n## C\n\nc\n"
        );
        write_section(&path, "## C", "## C\n\nd").unwrap();
        let doc = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(doc.ends_with("\n\n## C\n\nd\n"), "{doc:?}");
        assert!(!doc.contains("old"));
    }
}
