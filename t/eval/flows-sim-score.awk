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
#             host pairs typed right, over the union of the expected pairs
#             (from the truth's ranks: ring neighbours of a DP group on two
#             hosts: dp; adjacent stages of a pipeline on two hosts: pp)
#             and the pairs found (a found pair not expected must be other)
#   mixed     expected pairs that carry both (either type counts as right)
#   dp_ok     the DP groups, as host sets, are exactly the components of
#             the expected DP pairs
#   pp_ok     the pipelines, as host sequences, are exactly the distinct
#             host sequences of the truth's rank pipelines
#   iters iters_truth
#             iterations found (of the first job) and in the truth
#   med_err   |median found duration / median true duration - 1|, in %
#   fault     the injected fault kind (straggler, slow-link, slow-nic) or -
#   want      the subject a finding must name (an address, "a-b") or -
#   detect    1 when the wire can show it: a slow link on a pair with
#             traffic (the simulator slows what crosses it), a straggler
#             with DP peers on other hosts or with pipeline pairs (its
#             compute, read from its sends, against its own steps before
#             the onset), a slow NIC on a host with a pair or more (with
#             one, it is that pair's slow link: a slow-link finding of
#             that pair names it)
#   found     1 when a finding of that kind names that subject
#   first     1 when the first straggler, slow-link or slow-nic finding
#             is that one
#   onset     its first iteration minus the fault's (truth numbering: the
#             truth iteration that ends nearest the found one), or -
#   mag       its magnitude, or -
#   factor    the truth's factor of a straggler or slow NIC, or -
#   false     straggler, slow-link or slow-nic findings naming anything
#             else, and slow-group findings of a group that does not hold
#             the fault's host (a link's first end; any, without a fault)

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
function or1(x, bit) { x += 0; return int(x / bit) % 2 ? x : x + bit }

function truth(k, v, c) {
	if (path == "/job/nodes")
		name[++nnodes] = v
	else if (path == "/job/node_ips")
		nip[++nips] = v
	else if (path == "/job/ranks/") {
		if (k == "ip")
			rip[c] = v
		else if (k == "pp_stage")
			rs[c] = v
		else if (k == "dp_index")
			rd[c] = v
		else if (k == "tp_index")
			rt[c] = v
	} else if (path == "/iterations/" && k == "start_ts")
		tst[++ntit] = v
	else if (path == "/iterations/" && k == "end_ts")
		ten[ntit] = v
	else if (path == "/faults/") {
		if (k == "kind")
			fkind[c] = v
		else if (k == "node")
			fnode[c] = v
		else if (k == "peer_node")
			fpeer[c] = v
		else if (k == "iteration")
			fiter[c] = v
		else if (k == "factor")
			ffac[c] = v
	}
}

function uf(x) { while (par[x] != x) x = par[x]; return x }
function unite(a, b) { a = uf(a); b = uf(b); if (a != b) par[b] = a }

function median(arr, n,   a, i, j, t) {
	for (i = 1; i <= n; i++)
		a[i] = arr[i] + 0
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n == 0 ? 0 : n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function last_of(s,   n, a) { n = split(s, a, " "); return a[n] }

function flows(k, v, c) {
	if (path == "/jobs//hosts")
		ohosts[njobs] = ohosts[njobs] " " v
	else if (path == "/jobs//dp_groups/") {
		if (!(c in odp) && njobs == 1)
			gid[++ngid] = c	# "dp group N" is the N-th
		append(odp, c, v)
	}
	else if (path == "/jobs//pp_pipelines/")
		append(opp, c, v)
	else if (path == "/jobs//pairs/") {
		if (k == "a")
			pa[c] = v
		else if (k == "b")
			pb[c] = v
		else if (k == "type")
			pt[c] = v
	} else if (path == "/jobs//iterations/" && k == "duration" && njobs == 1)
		odur[++noit] = v
	else if (path == "/jobs//iterations/" && k == "index" && njobs == 1)
		oidx[++noidx] = v
	else if (path == "/jobs//iterations/" && k == "end" && njobs == 1)
		oend[noidx] = v
	else if (path == "/jobs//findings/") {
		if (k == "kind")
			xk[c] = v
		else if (k == "subject")
			xs[c] = v
		else if (k == "from")
			xf[c] = v
		else if (k == "magnitude")
			xm[c] = v
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

	# Expected pairs and groups from the truth's ranks: a host pair
	# carries DP traffic when ring neighbours of a DP group (same stage
	# and TP index) sit on its two hosts, PP traffic when adjacent stages
	# of one pipeline do; both: "mixed" (either type is right, since a
	# host pair has one).  DP groups are the components of the DP host
	# pairs; pipelines the distinct host sequences of the rank pipelines.
	tdp = tpp = ttp = 0
	for (c in rip) {
		at[rs[c] "," rd[c] "," rt[c]] = rip[c]
		if (rs[c] + 1 > tpp) tpp = rs[c] + 1
		if (rd[c] + 1 > tdp) tdp = rd[c] + 1
		if (rt[c] + 1 > ttp) ttp = rt[c] + 1
		par[rip[c]] = rip[c]
	}
	for (s = 0; s < tpp; s++)
		for (t = 0; t < ttp; t++)
			for (d = 0; d < tdp && tdp > 1; d++) {
				if (tdp == 2 && d == 1)
					break
				x = at[s "," d "," t]
				y = at[s "," ((d + 1) % tdp) "," t]
				if (x != y) {
					typ[pk(x, y)] = or1(typ[pk(x, y)], 1)
					unite(x, y)
				}
			}
	for (d = 0; d < tdp; d++)
		for (t = 0; t < ttp; t++) {
			seq = at["0," d "," t]
			for (s = 0; s + 1 < tpp; s++) {
				x = at[s "," d "," t]
				y = at[(s + 1) "," d "," t]
				if (x != y) {
					typ[pk(x, y)] = or1(typ[pk(x, y)], 2)
					seq = seq " " y
				}
			}
			if (index(seq, " ") && !(seq in want_pp)) {
				want_pp[seq] = 1
				nwpp++
			}
		}
	for (p in typ)
		want[p] = typ[p] == 1 ? "dp" : typ[p] == 2 ? "pp" : "mixed"
	for (hh in par) {
		r = uf(hh)
		cnt[r]++
		append(comp, r, hh)
	}
	for (r in comp)
		if (cnt[r] >= 2) {
			want_dp[sorted(comp[r])] = 1
			nwdp++
		}

	# Pairs: the union of expected and found.
	for (c in pa)
		got[pk(pa[c], pb[c])] = pt[c]
	pn = pok = 0
	for (p in want) {
		pn++
		pok += (p in got) && (got[p] == want[p] ||
		    (want[p] == "mixed" && got[p] != "other"))
		nmixed += want[p] == "mixed"
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
		if ((fkind[c] == "straggler" || fkind[c] == "slow-nic") &&
		    fault == "-") {
			fault = fkind[c]
			subj = ipof[fnode[c]]
			fit = fiter[c]
			factor = ffac[c]
		} else if (fkind[c] == "slow-link" && fault == "-") {
			fault = "slow-link"
			subj = pk(ipof[fnode[c]], ipof[fpeer[c]])
			fit = fiter[c]
		}
	# The truth's iteration that ends nearest each found one: the
	# onset is right when the finding's first iteration is the fault's.
	for (i = 1; i <= noidx; i++) {
		best = -1
		for (t = 1; t <= ntit; t++) {
			dd = oend[i] - ten[t]
			dd = dd < 0 ? -dd : dd
			if (best < 0 || dd < best) {
				best = dd
				tof[oidx[i]] = t
			}
		}
	}
	# Whether the wire can show the fault: a slow link on a pair that
	# carries traffic, a straggler with DP peers on other hosts or with
	# pipeline pairs, a slow NIC on a host with two pairs or more.
	detect = 0
	if (fault == "slow-link")	# what crosses it, DP or PP
		detect = subj in want
	else if (fault == "straggler") {
		for (g in want_dp)
			if (index(" " g " ", " " subj " "))
				detect = 1
		for (p in want)	# against its own steps before the onset
			if (want[p] != "dp" && index("-" p "-", "-" subj "-"))
				detect = 1
	} else if (fault == "slow-nic") {
		nh = 0
		for (p in want)
			if (index("-" p "-", "-" subj "-")) {
				nh++
				alt = p
			}
		detect = nh >= 1
		if (nh == 1) {	# its NIC and its one link look the same
			akind = "slow-link"
			asubj = alt
		}
	}
	found = bad = first = 0
	onset = "-"
	mag = "-"
	fo = -1
	for (c in xk)
		if ((xk[c] == "straggler" || xk[c] == "slow-link" ||
		    xk[c] == "slow-nic") && (fo < 0 || c + 0 < fo + 0))
			fo = c
	if (fo >= 0) {
		s = xs[fo]
		if (xk[fo] == "slow-link" && split(s, h, "-") == 2)
			s = pk(h[1], h[2])
		first = (xk[fo] == fault && s == subj) ||
		    (xk[fo] == akind && s == asubj)
	}
	for (c in xk) {
		if (xk[c] == "slow-group") {	# right when it holds the fault
			n = split(xs[c], h, " ")
			g = h[n] in gid ? odp[gid[h[n]]] : ""
			split(subj, h, "-")
			bad += fault == "-" || g == "" ||
			    !index(" " g " ", " " h[1] " ")
			continue
		}
		if (xk[c] != "straggler" && xk[c] != "slow-link" &&
		    xk[c] != "slow-nic")
			continue
		s = xs[c]
		if (xk[c] == "slow-link" && split(s, h, "-") == 2)
			s = pk(h[1], h[2])
		if ((xk[c] == fault && s == subj) ||
		    (xk[c] == akind && s == asubj)) {
			found = 1
			onset = (xf[c] in tof) ? tof[xf[c]] - fit : "?"
			mag = xm[c]
		} else
			bad++
	}
	printf "jobs=%d recog=%d pairs_ok=%d pairs_n=%d mixed=%d dp_ok=%d pp_ok=%d ",
	    njobs, recog, pok, pn, nmixed + 0, dp_ok, pp_ok
	for (i = 1; i <= ntit; i++)
		tdur[i] = ten[i] - tst[i]
	mt = median(tdur, ntit)
	mo = median(odur, noit)
	err = mt > 0 && noit > 0 ? 100 * (mo > mt ? mo / mt - 1 : 1 - mo / mt) : 100
	printf "iters=%d iters_truth=%d med_err=%.2f ", noit, ntit, err
	printf "fault=%s want=%s detect=%d found=%d first=%d onset=%s mag=%s ",
	    fault, subj, detect, found, first, onset, mag
	printf "factor=%s false=%d\n", factor == "" ? "-" : factor, bad
}
