-- Schema 4: the runs a user named as healthy runs of a job ('mark RUN
-- good --for JOB').  The healthy pool of a job is otherwise the runs of
-- the same program and shape that ended cleanly or are marked good; a
-- named run joins it whatever its shape.
CREATE TABLE baselines (
	job_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	run_id	INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	PRIMARY KEY (job_id, run_id)
);
