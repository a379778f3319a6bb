-- Schema 2: flow sets say which version of message assembly made them,
-- so a set stored by an older trainscope is assembled again instead of
-- reused.  Sets from schema 1 read as version 0: older than any.
ALTER TABLE flow_sets ADD COLUMN asm_version INTEGER NOT NULL DEFAULT 0;
