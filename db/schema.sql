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
	outcome	TEXT,			-- 'failed', 'degraded', 'completed' (older
					-- builds: 'healthy') or NULL (unknown)
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

-- Every file indexed for a job.  size, mtime and inode say whether it
-- changed since; bytes and lines say where an appended file continues.
CREATE TABLE files (
	id	INTEGER PRIMARY KEY,
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	path	TEXT NOT NULL,		-- relative to the job's root
	node_id	INTEGER REFERENCES nodes(id) ON DELETE SET NULL,
	rank	INTEGER,		-- NULL: unknown or several (combined)
	kind	TEXT NOT NULL,		-- 'log' or 'host'
	gz	INTEGER NOT NULL,	-- gzip: offsets are uncompressed
	size	INTEGER NOT NULL,	-- on disk, when indexed
	mtime	REAL NOT NULL,
	inode	INTEGER NOT NULL,
	bytes	INTEGER NOT NULL,	-- (uncompressed) bytes indexed
	lines	INTEGER NOT NULL,
	partial	INTEGER NOT NULL,	-- the last line had no newline yet
	ts_kind	INTEGER,		-- enum lp_ts_kind of its timestamps
	first_ts REAL,
	last_ts	REAL,
	UNIQUE (job_id, path)
);

-- Templates are global across jobs; ids are stable.
CREATE TABLE templates (
	id	INTEGER PRIMARY KEY,
	text	TEXT NOT NULL
);

-- Per file and template: how often, where first and last, and every line
-- number as delta-encoded unsigned LEB128 varints (lines[0] is the first
-- line number, each next value the gap to the previous).
CREATE TABLE file_templates (
	file_id	INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
	template_id INTEGER NOT NULL,
	count	INTEGER NOT NULL,
	first_line INTEGER NOT NULL,
	first_off INTEGER NOT NULL,
	first_ts REAL,
	last_line INTEGER NOT NULL,
	last_off INTEGER NOT NULL,
	last_ts	REAL,
	lines	BLOB NOT NULL,
	UNIQUE (file_id, template_id)
);
CREATE INDEX file_templates_tmpl ON file_templates(template_id);

-- A line of a file at least every 1024 lines and every 16 KiB (and the
-- first line of each range a worker read): where it starts and the latest
-- time of the file up to it (its running maximum: the merged log's key),
-- to seek and to map line numbers to times.
CREATE TABLE checkpoints (
	file_id	INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
	line	INTEGER NOT NULL,
	off	INTEGER NOT NULL,
	ts	REAL,
	PRIMARY KEY (file_id, line)
) WITHOUT ROWID;

-- Per job, node (NULL: files of no known node) and template, rebuilt from
-- file_templates after each index run.  iteration_* and stage are filled
-- by the diagnosis's tagging rules.
CREATE TABLE node_templates (
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	node_id	INTEGER REFERENCES nodes(id) ON DELETE CASCADE,
	template_id INTEGER NOT NULL,
	count	INTEGER NOT NULL,
	first_file INTEGER NOT NULL,
	first_line INTEGER NOT NULL,
	first_off INTEGER NOT NULL,
	first_ts REAL,
	last_file INTEGER NOT NULL,
	last_line INTEGER NOT NULL,
	last_off INTEGER NOT NULL,
	last_ts	REAL,
	iteration_first INTEGER,
	iteration_last INTEGER,
	stage	TEXT
);
CREATE INDEX node_templates_job ON node_templates(job_id, template_id);

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
