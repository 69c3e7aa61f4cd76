//! Keeping a warehouse healthy: merging its files (`compact`), verifying it (`check`),
//! removing what dead writers left (`gc`) and copying runs in from a bundle (`import`).

mod check;
mod compact;
mod gc;
mod import;

pub use check::CheckReport;
pub use compact::CompactReport;
pub use gc::GcReport;
