//! An internal subtransaction that is always rolled back (the protocol of PL/pgSQL's exception
//! blocks): remember the memory context and resource owner, begin, run, roll back whatever
//! happened, restore both. Used by the executor and by the separating-instance workspace.
//!
//! The guard rolls back exactly once on every path: explicitly, or when it is dropped (a return,
//! an early `?`, or an unwinding error), so no caller can leave the subtransaction open.

use std::cell::Cell;

use pgrx::pg_sys;

pub struct RolledBack {
    context: pg_sys::MemoryContext,
    owner: pg_sys::ResourceOwner,
    done: Cell<bool>,
}

impl RolledBack {
    /// Begin the subtransaction.
    pub fn begin() -> Self {
        // SAFETY: called in a backend inside a transaction, as PL/pgSQL does.
        unsafe {
            let (context, owner) = (pg_sys::CurrentMemoryContext, pg_sys::CurrentResourceOwner);
            pg_sys::BeginInternalSubTransaction(std::ptr::null());
            pg_sys::MemoryContextSwitchTo(context);
            RolledBack { context, owner, done: Cell::new(false) }
        }
    }

    /// Roll the subtransaction back and restore the memory context and resource owner; a second
    /// call does nothing.
    pub fn rollback(&self) {
        if self.done.replace(true) {
            return;
        }
        // SAFETY: the subtransaction begun by `begin` is the current one: everything begun inside
        // it was ended (or is ended by this rollback) before control comes back here.
        unsafe {
            pg_sys::RollbackAndReleaseCurrentSubTransaction();
            pg_sys::MemoryContextSwitchTo(self.context);
            pg_sys::CurrentResourceOwner = self.owner;
        }
    }
}

// The flag is only ever set, never left half-updated, so a guard seen after an unwind is sound.
impl std::panic::RefUnwindSafe for RolledBack {}

impl Drop for RolledBack {
    fn drop(&mut self) {
        self.rollback();
    }
}
