-- Schema 3: a job's diagnosis is kept, keyed to what it was computed
-- from (the job's files, its healthy pool, the fault library, the
-- trainscope version), so opening an unchanged job reads it back
-- instead of reading its logs again.  A different key is a stale result:
-- it is computed again and replaced, never shown.
CREATE TABLE results (
	job_id	INTEGER PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
	key	TEXT NOT NULL,		-- hex digest of the inputs
	created	REAL NOT NULL,		-- epoch seconds
	model	BLOB NOT NULL		-- the job model (src/model.c encoding)
);
