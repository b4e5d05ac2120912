# The scripted backend failures and reloads, run identically under keepalived and fairway.
# Each step_N is followed by a settle and a dump of the sorted `ipvsadm -Sn`.
STEPS=8

initial_state() {
  for a in 1 2 3 4 8 9 10; do backend_start 10.16.1.$a 80; done
  backend_start 10.16.1.12 8080
  misc a 0
  track tf 0
}

# .1 fails (quorum holds: 2 is not below 3-1); .3 answers 500 (inhibit: weight 0);
# the script exits 7 (weight 5); .5 comes up for the first time (alpha pool gains quorum); the
# track file raises .11 to 2 + 2 x 3.
step_1() {
  track tf 3
  backend_stop 10.16.1.1 80
  http_status 10.16.1.3 80 500
  misc a 7
  backend_start 10.16.1.5 80
}

# .2 fails: quorum lost, the sorry server takes over; .3 recovers; the script fails; the track
# file drains .11 to weight 0.
step_2() {
  track tf -1
  backend_stop 10.16.1.2 80
  http_status 10.16.1.3 80 200
  misc a 1
}

# .1 recovers but 2 < 3+1: still no quorum, the table must not change for it; the script passes;
# the track file brings .11 back to its configured weight.
step_3() {
  track tf 0
  backend_start 10.16.1.1 80
  misc a 0
}

# .2 recovers: quorum regained, the pool goes back and the sorry server leaves.
step_4() {
  backend_start 10.16.1.2 80
}

# The fwmark and group backends fail, and the DR backend on 8080; .4 answers 404.
step_5() {
  backend_stop 10.16.1.8 80
  backend_stop 10.16.1.9 80
  backend_stop 10.16.1.12 8080
  http_status 10.16.1.4 80 404
}

# .9, .12:8080 and .4 recover.
step_6() {
  backend_start 10.16.1.9 80
  backend_start 10.16.1.12 8080
  http_status 10.16.1.4 80 200
}

# Reload: a server removed, one changed, one added; a scheduler changed; a service removed, one
# added; the group grows.
step_7() {
  reload conf-1.conf
}

# .4 fails: it leaves both services that use it; after the reload, the track file still moves
# .11 (2 + 2 x 5).
step_8() {
  track tf 5
  backend_stop 10.16.1.4 80
}
