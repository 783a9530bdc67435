package failure

// curl's low-speed limit (git's http.lowSpeedLimit/lowSpeedTime and
// GIT_HTTP_LOW_SPEED_LIMIT/_TIME): a transfer that stayed below the limit for
// the whole window is a stalled server or network, and stalls pass.

var reLowSpeed = LazyRE(`Operation too slow\. Less than (\d+) bytes/sec transferred the last (\d+) seconds?`)

var lowSpeedMatchers = []Matcher{
	{
		Gates: []string{"Operation too slow"},
		RE:    reLowSpeed,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeTransferStalled, Trace: TrNet, Rank: RankTransport,
				Reason: "transfer stalled: below " + m[1] + " bytes/s for " + m[2] + "s (low-speed limit)",
				Remedy: "the server or the network stopped sending: retrying; GIT_HTTP_LOW_SPEED_LIMIT and GIT_HTTP_LOW_SPEED_TIME set the threshold"}, true
		},
	},
}
