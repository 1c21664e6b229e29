//! The argv executor (placeholder).
