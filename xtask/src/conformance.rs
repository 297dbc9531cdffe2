//! `cargo xtask conformance`: every language runner and the matrix.

use crate::util::Result;

/// Runs the conformance matrix (`--regen` rebuilds goldens from the C++ replayer first).
pub fn run(_args: &[String]) -> Result<()> {
    Ok(())
}
