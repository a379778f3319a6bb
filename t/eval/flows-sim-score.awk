# flows-sim-score.awk -- score `trainscope flows --format json DIR` against
# DIR/truth.json of a simulated job.
#
#	awk -f flows-sim-score.awk DIR/truth.json FLOWS.json
#
# Both documents are pretty-printed JSON, one value or bracket a line, so a
# stack of keys is enough to know where a value sits.  Prints one line of
# NAME=VALUE fields:
#   jobs      jobs found
#   recog     1 when exactly one job was found and its hosts are the truth's
#   pairs_ok pairs_n
#             pairs typed right, over the union of the expected pairs (ring
#             neighbours of each DP group: dp; adjacent pipeline stages: pp)
#             and the pairs found (a found pair not expected must be other)
#   dp_ok     the DP groups, as host sets, are exactly the truth's
#   pp_ok     the pipelines, as host sequences, are exactly the truth's
#   fault     the injected fault kind (straggler, slow-link) or -
#   want      the subject a finding must name (an address, "a-b") or -
#   found     1 when a finding of that kind names that subject
#   false     straggler or slow-link findings naming anything else

function opn(k,   i) {
	depth++
	key[depth] = k
	id[depth] = ++nid
	path = ""
	for (i = 2; i <= depth; i++)	# key[1]: the document
		path = path "/" key[i]
	if (file == 2 && path == "/jobs/")
		njobs++
}

function cls(   i) {
	depth--
	path = ""
	for (i = 2; i <= depth; i++)	# key[1]: the document
		path = path "/" key[i]
}

function sorted(s,   n, a, i, j, t, r) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	r = ""
	for (i = 1; i <= n; i++)
		r = r (i > 1 ? " " : "") a[i]
	return r
}

# arr[c] gets v appended, space-separated (no test that creates it first)
function append(arr, c, v) {
	if (c in arr)
		arr[c] = arr[c] " " v
	else
		arr[c] = v
}

function pk(a, b) { return a < b ? a "-" b : b "-" a }

function truth(k, v, c) {
	if (path == "/job/nodes")
		name[++nnodes] = v
	else if (path == "/job/node_ips")
		nip[++nips] = v
	else if (path == "/job/dp_groups//nodes")
		append(tdp, c, v)
	else if (path == "/job/pp_pipelines//stage_edges/") {
		p = id[depth - 2]	# the pipeline: edges a-b, b-c give a b c
		if (!(p in tpp))
			tpp[p] = v
		else if (v != last_of(tpp[p]))
			tpp[p] = tpp[p] " " v
	} else if (path == "/faults/") {
		if (k == "kind")
			fkind[c] = v
		else if (k == "node")
			fnode[c] = v
		else if (k == "peer_node")
			fpeer[c] = v
	}
}

function last_of(s,   n, a) { n = split(s, a, " "); return a[n] }

function flows(k, v, c) {
	if (path == "/jobs//hosts")
		ohosts[njobs] = ohosts[njobs] " " v
	else if (path == "/jobs//dp_groups/")
		append(odp, c, v)
	else if (path == "/jobs//pp_pipelines/")
		append(opp, c, v)
	else if (path == "/jobs//pairs/") {
		if (k == "a")
			pa[c] = v
		else if (k == "b")
			pb[c] = v
		else if (k == "type")
			pt[c] = v
	} else if (path == "/jobs//findings/") {
		if (k == "kind")
			xk[c] = v
		else if (k == "subject")
			xs[c] = v
	}
}

FNR == 1 { file++; depth = 0; path = "" }
{
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/,$/, "", line)
	k = ""
	v = line
	if (match(line, /^"[^"]*": /)) {
		k = substr(line, 2, RLENGTH - 4)
		v = substr(line, RLENGTH + 1)
	}
	if (v == "[" || v == "{") { opn(k); next }
	if (v == "]" || v == "}") { cls(); next }
	if (v == "[]" || v == "{}")
		next
	gsub(/"/, "", v)
	if (file == 1)
		truth(k, v, id[depth])
	else
		flows(k, v, id[depth])
}

END {
	for (i = 1; i <= nnodes; i++)
		ipof[name[i]] = nip[i]
	all = ""
	for (i = 1; i <= nips; i++)
		all = all " " nip[i]
	recog = njobs == 1 && sorted(all) == sorted(ohosts[1])

	# Expected pairs and groups from the truth's topology.
	for (c in tdp) {
		n = split(tdp[c], g, " ")
		s = ""
		for (i = 1; i <= n; i++) {
			g[i] = ipof[g[i]]
			s = s " " g[i]
		}
		s = sorted(s)
		if (s in want_dp)
			continue
		want_dp[s] = 1
		nwdp++
		for (i = 1; i <= n && n > 1; i++) {
			j = i % n + 1
			if (n == 2 && i == 2)
				break
			want[pk(g[i], g[j])] = "dp"
		}
	}
	for (c in tpp) {
		if (tpp[c] in want_pp)
			continue
		want_pp[tpp[c]] = 1
		nwpp++
		n = split(tpp[c], g, " ")
		for (i = 1; i < n; i++)
			want[pk(g[i], g[i + 1])] = "pp"
	}

	# Pairs: the union of expected and found.
	for (c in pa)
		got[pk(pa[c], pb[c])] = pt[c]
	pn = pok = 0
	for (p in want) {
		pn++
		pok += (p in got) && got[p] == want[p]
	}
	for (p in got)
		if (!(p in want)) {
			pn++
			pok += got[p] == "other"
		}

	dp_ok = 1
	for (c in odp) {
		s = sorted(odp[c])
		if (!(s in want_dp) || (s in seen_dp))
			dp_ok = 0
		seen_dp[s] = 1
		ndp++
	}
	if (ndp != nwdp)
		dp_ok = 0
	pp_ok = 1
	for (c in opp) {
		if (!(opp[c] in want_pp) || (opp[c] in seen_pp))
			pp_ok = 0
		seen_pp[opp[c]] = 1
		npp++
	}
	if (npp != nwpp)
		pp_ok = 0

	# The injected fault (the first straggler or slow link).
	fault = subj = "-"
	for (c in fkind)
		if (fkind[c] == "straggler" && fault == "-") {
			fault = "straggler"
			subj = ipof[fnode[c]]
		} else if (fkind[c] == "slow-link" && fault == "-") {
			fault = "slow-link"
			subj = pk(ipof[fnode[c]], ipof[fpeer[c]])
		}
	found = bad = 0
	for (c in xk) {
		if (xk[c] != "straggler" && xk[c] != "slow-link")
			continue
		s = xs[c]
		if (xk[c] == "slow-link" && split(s, h, "-") == 2)
			s = pk(h[1], h[2])
		if (xk[c] == fault && s == subj)
			found = 1
		else
			bad++
	}
	printf "jobs=%d recog=%d pairs_ok=%d pairs_n=%d dp_ok=%d pp_ok=%d ",
	    njobs, recog, pok, pn, dp_ok, pp_ok
	printf "fault=%s want=%s found=%d false=%d\n", fault, subj, found, bad
}
