package failure

// curl's low-speed limit (git's http.lowSpeedLimit/lowSpeedTime and
// GIT_HTTP_LOW_SPEED_LIMIT/_TIME): a transfer that stayed below the limit for
// the whole window is a stalled server or network, and stalls pass.

var reLowSpeed = lazyRE(`Operation too slow\. Less than (\d+) bytes/sec transferred the last (\d+) seconds?`)

var lowSpeedMatchers = []matcher{
	{
		gates: []string{"Operation too slow"},
		re:    reLowSpeed,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Transient, code: CodeTransferStalled, tr: trNet, rank: rankTransport,
				reason: "transfer stalled: below " + m[1] + " bytes/s for " + m[2] + "s (low-speed limit)",
				remedy: "the server or the network stopped sending: retrying; GIT_HTTP_LOW_SPEED_LIMIT and GIT_HTTP_LOW_SPEED_TIME set the threshold"}, true
		},
	},
}
