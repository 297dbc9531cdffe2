//! Process helpers shared by the xtask commands.

use std::path::{Path, PathBuf};

/// Errors are reported to the user as one line and a failing exit code.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The repository root (the parent of `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the repository root")
        .to_path_buf()
}

/// A `cargo` invocation run from the repository root.
pub fn cargo(args: &[&str]) -> duct::Expression {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    duct::cmd(cargo, args).dir(root())
}

/// Runs `expr`, announcing it, and turns a failure into an error naming the step.
pub fn step(name: &str, expr: duct::Expression) -> Result<()> {
    println!("==> {name}");
    let out = expr.unchecked().run()?;
    if !out.status.success() {
        return Err(format!("{name} failed ({})", out.status).into());
    }
    Ok(())
}

/// True when `program` is on the PATH.
pub fn have(program: &str) -> bool {
    duct::cmd("sh", ["-c", &format!("command -v {program}")])
        .stdout_null()
        .stderr_null()
        .unchecked()
        .run()
        .map(|o| o.status.success())
        .unwrap_or(false)
}
