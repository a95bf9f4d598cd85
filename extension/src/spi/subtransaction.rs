//! An internal subtransaction that is always rolled back (the protocol of PL/pgSQL's exception
//! blocks): remember the memory context and resource owner, begin, run, roll back whatever
//! happened, restore both. Used by the executor and by the separating-instance workspace.

use pgrx::pg_sys;

pub struct RolledBack {
    context: pg_sys::MemoryContext,
    owner: pg_sys::ResourceOwner,
}

impl RolledBack {
    /// Begin the subtransaction; the caller must call [`RolledBack::rollback`] exactly once on every path.
    pub fn begin() -> Self {
        // SAFETY: called in a backend inside a transaction, as PL/pgSQL does.
        unsafe {
            let (context, owner) = (pg_sys::CurrentMemoryContext, pg_sys::CurrentResourceOwner);
            pg_sys::BeginInternalSubTransaction(std::ptr::null());
            pg_sys::MemoryContextSwitchTo(context);
            RolledBack { context, owner }
        }
    }

    /// Roll the subtransaction back and restore the memory context and resource owner.
    pub fn rollback(&self) {
        // SAFETY: the subtransaction begun by `begin` is the current one.
        unsafe {
            pg_sys::RollbackAndReleaseCurrentSubTransaction();
            pg_sys::MemoryContextSwitchTo(self.context);
            pg_sys::CurrentResourceOwner = self.owner;
        }
    }
}
