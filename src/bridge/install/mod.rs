//! `hookhost install` / `uninstall`: owned by helper "install", whose version of this
//! file replaces this placeholder at the merge.
