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

-- Flow ingest.  A job's captures are assembled together into one flow
-- set (hosts and messages, see src/flowasm.h); the set is re-read only
-- when a capture's size or mtime, the list of captures or the assembly
-- parameters change.  Messages are kept one per row: a training job
-- yields a few per iteration and host pair, far fewer than packets.
CREATE TABLE captures (
	id	INTEGER PRIMARY KEY,
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	path	TEXT NOT NULL,		-- relative to the job root when under it
	format	TEXT NOT NULL,		-- 'pcap', 'pcapng', 'nfdump-csv', ...
	size	INTEGER NOT NULL,
	mtime	REAL NOT NULL,
	records	INTEGER NOT NULL,	-- records used
	skipped	INTEGER NOT NULL,	-- damaged records skipped
	first_ts REAL,
	last_ts	REAL,
	UNIQUE (job_id, path)
);

CREATE TABLE flow_sets (
	job_id	INTEGER PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
	idle_timeout REAL NOT NULL,	-- assembly parameters used
	msg_gap	REAL NOT NULL,
	records	INTEGER NOT NULL,
	flows	INTEGER NOT NULL,
	first_ts REAL,
	last_ts	REAL,
	bytes	INTEGER NOT NULL,
	pkts	INTEGER NOT NULL,
	ack_pkts INTEGER NOT NULL,
	ack_bytes INTEGER NOT NULL,
	warnings INTEGER NOT NULL
);

-- Hosts of a flow set, numbered in order of first appearance; ip joins
-- nodes(ip).
CREATE TABLE flow_hosts (
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	idx	INTEGER NOT NULL,
	ip	TEXT NOT NULL,
	PRIMARY KEY (job_id, idx)
) WITHOUT ROWID;

-- Messages (bursts) in order of start; src and dst are flow_hosts.idx.
CREATE TABLE flow_msgs (
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	src	INTEGER NOT NULL,
	dst	INTEGER NOT NULL,
	start_ts REAL NOT NULL,
	end_ts	REAL NOT NULL,
	bytes	INTEGER NOT NULL,
	payload	INTEGER NOT NULL,
	pkts	INTEGER NOT NULL,
	sport	INTEGER NOT NULL,
	dport	INTEGER NOT NULL,
	proto	INTEGER NOT NULL,
	flags	INTEGER NOT NULL,
	qp	INTEGER NOT NULL,
	ce	INTEGER NOT NULL,
	cnp	INTEGER NOT NULL
);
CREATE INDEX flow_msgs_job ON flow_msgs(job_id);
