-- schema.sql -- the trainscope cache, schema version 1.
--
-- Embedded in the binary and applied to an empty cache.  Later versions
-- add db/migrate-N.sql files; never edit a released schema in place.
-- Paths are stored relative to the job's root; raw lines stay in the
-- source files and the cache keeps byte offsets for drill-down.

CREATE TABLE meta (
	key	TEXT PRIMARY KEY,
	value	TEXT NOT NULL
);

-- A job: a directory (or a set of files) indexed together.
CREATE TABLE jobs (
	id	INTEGER PRIMARY KEY,
	name	TEXT NOT NULL UNIQUE,	-- short name the user types
	root	TEXT NOT NULL,		-- absolute path the files are relative to
	created	REAL NOT NULL,		-- first indexed, epoch seconds
	indexed	REAL,			-- last indexed, epoch seconds
	outcome	TEXT,			-- 'failed', 'healthy' or NULL (unknown)
	marked	TEXT			-- the user's verdict: 'good', 'bad' or NULL
);

-- Machines of a job; ip joins logs with flow captures.
CREATE TABLE nodes (
	id	INTEGER PRIMARY KEY,
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	name	TEXT NOT NULL,
	ip	TEXT,
	UNIQUE (job_id, name)
);
CREATE INDEX nodes_ip ON nodes(job_id, ip);

-- Process ranks and the node each runs on.
CREATE TABLE ranks (
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	rank	INTEGER NOT NULL,
	node_id	INTEGER REFERENCES nodes(id) ON DELETE SET NULL,
	PRIMARY KEY (job_id, rank)
);
