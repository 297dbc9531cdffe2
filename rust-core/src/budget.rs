//! The expansion budget: a cap on the work and output of anything that expands a
//! buffer into a tree (JSON, host objects in the SDKs).
//!
//! Offsets may be shared, so a small buffer can describe an exponentially large
//! tree. Verification stays linear, but expansion is charged per node and per
//! output byte and stops with [`ErrorKind::BudgetExceeded`].

use crate::error::{Error, ErrorKind, Result};

/// Remaining nodes and output bytes an expansion may produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    nodes_left: u64,
    bytes_left: u64,
}

impl Budget {
    /// Output allowed per input byte by [`for_input`](Self::for_input).
    pub const BYTES_PER_INPUT_BYTE: u64 = 256;
    /// Nodes allowed per input byte by [`for_input`](Self::for_input).
    pub const NODES_PER_INPUT_BYTE: u64 = 64;
    /// Floor for small inputs: 1 MiB of output, 64 Ki nodes.
    pub const MIN_BYTES: u64 = 1 << 20;
    /// Node floor for small inputs.
    pub const MIN_NODES: u64 = 1 << 16;

    /// The default budget for an input of `len` bytes: proportional to it, with a floor.
    pub fn for_input(len: usize) -> Budget {
        let len = len as u64;
        Budget {
            nodes_left: len
                .saturating_mul(Self::NODES_PER_INPUT_BYTE)
                .max(Self::MIN_NODES),
            bytes_left: len
                .saturating_mul(Self::BYTES_PER_INPUT_BYTE)
                .max(Self::MIN_BYTES),
        }
    }

    /// An explicit budget.
    pub fn new(max_nodes: u64, max_bytes: u64) -> Budget {
        Budget {
            nodes_left: max_nodes,
            bytes_left: max_bytes,
        }
    }

    /// No limit (only for trusted input).
    pub fn unlimited() -> Budget {
        Budget {
            nodes_left: u64::MAX,
            bytes_left: u64::MAX,
        }
    }

    /// Charges one node.
    #[inline]
    pub fn node(&mut self) -> Result<()> {
        if self.nodes_left == 0 {
            return Err(Error::new(ErrorKind::BudgetExceeded));
        }
        self.nodes_left -= 1;
        Ok(())
    }

    /// Charges `n` nodes at once (the elements of a container about to be
    /// read, each then read without a charge of its own).
    #[inline]
    pub(crate) fn nodes(&mut self, n: usize) -> Result<()> {
        let n = n as u64;
        if n > self.nodes_left {
            return Err(Error::new(ErrorKind::BudgetExceeded));
        }
        self.nodes_left -= n;
        Ok(())
    }

    /// Charges `n` output bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<()> {
        let n = n as u64;
        if n > self.bytes_left {
            return Err(Error::new(ErrorKind::BudgetExceeded));
        }
        self.bytes_left -= n;
        Ok(())
    }

    /// Nodes still allowed.
    pub fn nodes_left(&self) -> u64 {
        self.nodes_left
    }

    /// Output bytes still allowed.
    pub fn bytes_left(&self) -> u64 {
        self.bytes_left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausts_and_reports() {
        let mut b = Budget::new(2, 10);
        assert!(b.node().is_ok());
        assert!(b.node().is_ok());
        assert_eq!(b.node().unwrap_err().kind(), &ErrorKind::BudgetExceeded);
        assert!(b.bytes(10).is_ok());
        assert!(b.bytes(1).is_err());
    }

    #[test]
    fn scales_with_input() {
        assert_eq!(Budget::for_input(0).bytes_left(), Budget::MIN_BYTES);
        assert_eq!(Budget::for_input(1 << 20).bytes_left(), 256 << 20);
    }
}
