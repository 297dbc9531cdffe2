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

/// Cargo's target directory: `CARGO_TARGET_DIR` when set, else `target/`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// File name of a cdylib built by cargo on this platform (`libx.so`, `libx.dylib`, `x.dll`).
pub fn cdylib_name(stem: &str) -> String {
    format!(
        "{}{stem}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// The `flexbuf` CLI (debug build), built first.
pub fn flexbuf_cli() -> Result<PathBuf> {
    step(
        "cargo build -p flexbuf-cli",
        cargo(&["build", "-q", "-p", "flexbuf-cli"]),
    )?;
    Ok(target_dir()
        .join("debug")
        .join(format!("flexbuf{}", std::env::consts::EXE_SUFFIX)))
}

/// `flexbuf gen --lang <lang>` of each schema into `out` (builds the CLI first).
pub fn gen(lang: &str, schemas: &[PathBuf], out: &Path) -> Result<()> {
    let cli = flexbuf_cli()?;
    for schema in schemas {
        step(
            &format!("flexbuf gen --lang {lang} {}", schema.display()),
            duct::cmd(
                &cli,
                [
                    "gen".as_ref(),
                    "--lang".as_ref(),
                    lang.as_ref(),
                    schema.as_os_str(),
                    "-o".as_ref(),
                    out.as_os_str(),
                ],
            )
            .dir(root())
            .stdout_null(),
        )?;
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
