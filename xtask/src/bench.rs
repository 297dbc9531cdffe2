//! `cargo xtask bench <suite>`.

use crate::util::Result;

/// Runs the named benchmark suite.
pub fn run(args: &[String]) -> Result<()> {
    Err(format!("unknown benchmark suite {:?}", args.first()).into())
}
