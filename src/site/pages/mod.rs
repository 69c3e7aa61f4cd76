//! One file per page, each beside its template's view model.

pub mod compare;
pub mod index;
pub mod run;
pub mod series;
pub mod sweep;
pub mod transfer;
