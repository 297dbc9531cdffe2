//! Schema parser and code generators (in progress).
