package failure

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The table of meanings: the words APIs put in their error bodies
// (PERMISSION_DENIED, permission_denied, AccessDenied, forbidden,
// invalid_auth, channel_not_found, RateLimitExceeded, ...) mapped, by
// their normalised form (lower case, letters and digits only, a trailing
// "error", "exception" or "fault" dropped), to one meaning each. A meaning
// decides the class once for every API that uses the word; no API has a
// path of its own.

// meaning is what an API's error word says.
type meaning uint8

const (
	mNone        meaning = iota
	mAuth                // credentials invalid, expired or revoked: policy
	mPermission          // credentials valid, permission missing: policy
	mNotFound            // not found: absent on a lookup, structural on a write
	mInvalid             // invalid request, validation, failed precondition: structural
	mExists              // already exists: structural
	mTransient           // overloaded, unavailable, deadline exceeded, aborted: transient
	mRateLimited         // rate-limited: the rate-limit verdict (the wait decides)
	mQuota               // quota, credits, billing: the quota verdict (policy unless it resets soon)
	mTooLarge            // a request over a stated limit: structural
)

// meaningNames are the meanings as docs/failures.md names them.
var meaningNames = [...]string{"", "credentials invalid or revoked", "permission missing", "not found", "invalid request", "already exists", "unavailable", "rate-limited", "quota or billing", "over a stated limit"}

func (m meaning) String() string { return meaningNames[m] }

// meaningWords is the table, by normalised word. Google's and gRPC's
// canonical status names, Slack's documented error words, XRPC's, AWS's,
// Anthropic's and OpenAI's types and codes, RFC 9457 problem types and
// the usual HTTP reason phrases all meet here.
var meaningWords = map[string]meaning{
	// credentials
	"unauthenticated": mAuth, "unauthorized": mAuth, "unauthorised": mAuth, "invalidauth": mAuth, "notauthed": mAuth,
	"accountinactive": mAuth, "tokenrevoked": mAuth, "tokenexpired": mAuth, "expiredtoken": mAuth, "invalidtoken": mAuth,
	"invalidapikey": mAuth, "authentication": mAuth, "authenticationfailed": mAuth, "invalidcredentials": mAuth,
	"badcredentials": mAuth, "invalidaccesstoken": mAuth, "invalidgrant": mAuth, "authrequired": mAuth,
	"authenticationrequired": mAuth, "invalidclienttokenid": mAuth, "unrecognizedclient": mAuth, "signaturedoesnotmatch": mAuth,
	"invalidsignature": mAuth, "accesstokenrequired": mAuth, "tokenrequired": mAuth, "invalidbearertoken": mAuth,
	"notauthenticated": mAuth, "loginrequired": mAuth, "invalidsession": mAuth, "sessionexpired": mAuth, "accounttokenmismatch": mAuth,
	"authfailure": mAuth, "incompletesignature": mAuth, "invalidauthenticationtokentenant": mAuth, "twofactor": mAuth,
	// permission
	"permissiondenied": mPermission, "forbidden": mPermission, "accessdenied": mPermission, "missingscope": mPermission,
	"nopermission": mPermission, "notallowed": mPermission, "insufficientpermissions": mPermission, "insufficientscope": mPermission,
	"insufficientscopes": mPermission, "missingaccess": mPermission, "missingpermissions": mPermission, "notinchannel": mPermission,
	"authorizationfailed": mPermission, "notauthorized": mPermission, "notpermitted": mPermission, "restricted": mPermission,
	"restrictedaction": mPermission, "accountsuspended": mPermission, "permission": mPermission, "ekmaccessdenied": mPermission,
	"teamaccessnotgranted": mPermission, "notallowedtokentype": mPermission, "accesstokenscopeinsufficient": mPermission,
	"denied": mPermission, "optinrequired": mPermission, "authorizationpermissionmismatch": mPermission,
	"authorizationfailure": mPermission, "accountisdisabled": mPermission, "readonlydisabledsubscription": mPermission,
	"unsupportedcountryregionterritory": mPermission, "verificationrequired": mPermission, "suspended": mPermission,
	"twofactorsetuprequired": mPermission, "accessnotconfigured": mPermission,
	// existence
	"notfound": mNotFound, "nosuchkey": mNotFound, "nosuchbucket": mNotFound, "nosuchentity": mNotFound, "nosuchresource": mNotFound,
	"alreadyexists": mExists, "duplicate": mExists, "alreadyreacted": mExists, "nametaken": mExists, "alreadyinchannel": mExists,
	"resourceinuse": mExists, "entityalreadyexists": mExists,
	// the request
	"invalidargument": mInvalid, "invalidrequest": mInvalid, "invalidparameter": mInvalid, "invalidparams": mInvalid,
	"invalidparameters": mInvalid, "validation": mInvalid, "validationfailed": mInvalid, "badrequest": mInvalid,
	"malformed": mInvalid, "malformedrequest": mInvalid, "failedprecondition": mInvalid, "invalidformbody": mInvalid,
	"invalidvalue": mInvalid, "unsupportedvalue": mInvalid, "unsupportedparameter": mInvalid, "invalidinput": mInvalid,
	"outofrange": mInvalid, "unprocessableentity": mInvalid, "unimplemented": mInvalid, "invalidarguments": mInvalid,
	"invalidblocks": mInvalid, "isarchived": mInvalid, "channelisarchived": mInvalid, "methoddeprecated": mInvalid,
	"invalidjson": mInvalid, "notimplemented": mInvalid, "methodnotallowed": mInvalid, "preconditionfailed": mInvalid,
	"unsupported": mInvalid, "conditionalcheckfailed": mInvalid, "notext": mInvalid,
	// the OCI distribution spec's codes (DENIED, UNAUTHORIZED, TOOMANYREQUESTS and UNSUPPORTED are above)
	"nameunknown": mNotFound, "manifestunknown": mNotFound, "blobunknown": mNotFound, "blobuploadunknown": mNotFound,
	"manifestblobunknown": mNotFound, "nameinvalid": mInvalid, "taginvalid": mInvalid, "manifestinvalid": mInvalid,
	"digestinvalid": mInvalid, "sizeinvalid": mInvalid, "blobuploadinvalid": mInvalid, "rangeinvalid": mInvalid,
	"manifestunverified": mInvalid, "paginationnumberinvalid": mInvalid,
	// the service
	"unavailable": mTransient, "serviceunavailable": mTransient, "overloaded": mTransient, "deadlineexceeded": mTransient,
	"aborted": mTransient, "internal": mTransient, "internalerror": mTransient, "internalservererror": mTransient,
	"servererror": mTransient, "apierror": mTransient, "timeout": mTransient, "requesttimeout": mTransient,
	"gatewaytimeout": mTransient, "badgateway": mTransient, "servicebusy": mTransient, "fatalerror": mTransient,
	"temporarilyunavailable": mTransient, "tryagainlater": mTransient, "internalfailure": mTransient, "serviceexception": mTransient,
	"upstreamerror": mTransient, "requesttimeouterror": mTransient, "cancelled": mTransient,
	"serverbusy": mTransient, "upstreamfailure": mTransient, "upstreamtimeout": mTransient, "notenoughresources": mTransient,
	// throttling
	"ratelimited": mRateLimited, "ratelimit": mRateLimited, "ratelimitexceeded": mRateLimited, "toomanyrequests": mRateLimited,
	"throttled": mRateLimited, "throttling": mRateLimited, "slowdown": mRateLimited, "requestlimitexceeded": mRateLimited,
	"ratelimitreached": mRateLimited, "requestthrottled": mRateLimited, "provisionedthroughputexceeded": mRateLimited,
	// quotas and billing
	"insufficientquota": mQuota, "quotaexceeded": mQuota, "billing": mQuota, "insufficientcredits": mQuota,
	"insufficientfunds": mQuota, "insufficientbalance": mQuota, "paymentrequired": mQuota, "overquota": mQuota,
	"usagelimitreached": mQuota, "creditsexhausted": mQuota, "billinghardlimitreached": mQuota, "billingnotactive": mQuota,
	"quotaexhausted": mQuota, "usagenotincluded": mQuota, "delinquent": mQuota,
	// over a stated limit
	"requesttoolarge": mTooLarge, "payloadtoolarge": mTooLarge, "contextlengthexceeded": mTooLarge, "toolarge": mTooLarge,
	"entitytoolarge": mTooLarge, "requestentitytoolarge": mTooLarge, "msgtoolong": mTooLarge, "filetoolarge": mTooLarge,
	"contenttoolarge": mTooLarge, "tokenlimitexceeded": mTooLarge, "toomanyattachments": mTooLarge,
}

// meaningSuffixes read a word the table lacks by its ending: every
// *_not_found, *Forbidden, *_too_large, *AlreadyExists and *Unavailable
// says the same whatever names the thing.
var meaningSuffixes = []struct {
	suffix string
	m      meaning
}{
	{"notfound", mNotFound}, {"doesnotexist", mNotFound}, {"alreadyexists", mExists}, {"forbidden", mPermission},
	{"accessdenied", mPermission}, {"permissiondenied", mPermission}, {"toolarge", mTooLarge}, {"toolong", mTooLarge},
	{"unavailable", mTransient}, {"ratelimited", mRateLimited}, {"ratelimitexceeded", mRateLimited},
	{"quotaexceeded", mQuota}, {"tokenexpired", mAuth}, {"tokeninvalid", mAuth}, {"tokenrevoked", mAuth},
	{"unauthorized", mAuth}, {"invalidauth", mAuth}, {"iscurrentlyloading", mTransient},
	// Slack's *_denied; AWS's *Throttled; Azure's *TimedOut; accounts
	// *Suspended, *Deactivated, *Disabled or taken down
	{"denied", mPermission}, {"throttled", mRateLimited},
	{"timedout", mTransient}, {"suspended", mPermission}, {"deactivated", mPermission}, {"disabled", mPermission},
	{"takedown", mPermission}, {"permissions", mPermission}, {"loginrequired", mAuth}, {"ratelimit", mRateLimited},
	{"notallowed", mPermission}, {"notpermitted", mPermission},
	// "Status is a duplicate." (X's 187), "duplicate_name"
	{"duplicate", mExists},
}

// credentialQualifiers and credentialNouns read the words that say a
// credential is bad, in either order (invalid_api_key, ApiKeyInvalid,
// MissingAuthenticationToken, AuthMissing, expired_api_key): policy,
// before the invalid* and missing* prefixes read them as a malformed
// request.
var (
	credentialQualifiers = []string{"invalid", "expired", "missing", "revoked", "incorrect", "required"}
	credentialNouns      = []string{"token", "tokenid", "apikey", "accesskey", "secretkey", "accesskeyid", "credentials", "credential", "signature", "password", "secret", "auth", "authentication"}
)

// credentialWord reports whether w is a qualifier and a credential's noun.
func credentialWord(w string) bool {
	for _, q := range credentialQualifiers {
		rest, ok := strings.CutPrefix(w, q)
		if !ok {
			rest, ok = strings.CutSuffix(w, q)
		}
		if !ok || rest == "" {
			continue
		}
		for _, n := range credentialNouns {
			if strings.HasSuffix(rest, n) || strings.HasPrefix(rest, n) && q != "missing" && q != "required" && len(rest) == len(n) {
				return true
			}
		}
	}
	return false
}

// meaningPrefixes read a family of words by its start: WordPress's
// rest_cannot_* and rest_forbidden_*, AWS's NoSuch*, the invalid_* words.
var meaningPrefixes = []struct {
	prefix string
	m      meaning
}{
	{"restcannot", mPermission}, {"restforbidden", mPermission}, {"restnoroute", mNotFound}, {"restinvalid", mInvalid},
	{"nosuch", mNotFound}, {"unknown", mNotFound}, {"invalid", mInvalid}, {"missing", mInvalid}, {"unsupported", mInvalid},
}

// bareNotFound are the not-found words that name no thing: the resource
// the URL names is not there (absent on a lookup). A word naming a thing
// (channel_not_found, chat not found, DeploymentNotFound) says a value
// the request sends names nothing.
var bareNotFound = map[string]bool{"notfound": true, "resourcenotfound": true, "objectnotfound": true, "entitynotfound": true, "itemnotfound": true, "nosuchkey": true, "nosuchentity": true, "nosuchresource": true}

// normWord normalises an error word: the part after a namespace
// (com.amazon...#ThrottlingException, urn:...:rateLimited, a problem
// type's URI), lower case, letters and digits only.
func normWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, "#/:"); i >= 0 && i+1 < len(s) {
		if strings.ContainsAny(s, "/#") || strings.HasPrefix(s, "urn:") {
			s = s[i+1:]
		}
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}

// meaningOf returns the meaning of a normalised word, and whether a
// not-found names a thing.
func meaningOf(w string) (m meaning, named bool) { return meaningLookup(w, true) }

// meaningLookup is meaningOf; prefixes is false for a word read from
// prose rather than from a field (a word starting "invalid" or "unknown"
// in a sentence says less than an error code does).
func meaningLookup(w string, prefixes bool) (m meaning, named bool) {
	if w == "" {
		return mNone, false
	}
	for _, suf := range []string{"", "error", "exception", "fault"} {
		if t, ok := strings.CutSuffix(w, suf); ok && t != "" && credentialWord(t) {
			return mAuth, false // a credential's word, before the invalid* and missing* prefixes
		}
	}
	look := func(w string) meaning {
		if m, ok := meaningWords[w]; ok {
			return m
		}
		if credentialWord(w) {
			return mAuth
		}
		for _, s := range meaningSuffixes {
			if strings.HasSuffix(w, s.suffix) {
				return s.m
			}
		}
		for _, p := range meaningPrefixes {
			if prefixes && strings.HasPrefix(w, p.prefix) && len(w) > len(p.prefix) {
				return p.m
			}
		}
		return mNone
	}
	m = look(w)
	if m == mNone {
		for _, suf := range []string{"error", "exception", "fault", "err"} {
			if t, ok := strings.CutSuffix(w, suf); ok && t != "" {
				if m = look(t); m != mNone {
					w = t
					break
				}
			}
		}
	}
	if m == mNotFound {
		named = !bareNotFound[w] && !strings.HasPrefix(w, "unknown")
	}
	return m, named
}

// maxPhraseWords bounds a message read as a word ("Missing Access",
// "Authentication error", "Bad Request: chat not found"): longer prose is
// left to the phrase table.
const maxPhraseWords = 5

// maxPhraseParts bounds the parts of a message read as words.
const maxPhraseParts = 6

// phraseMeaning reads a short message as words: each part of "Bad
// Request: chat not found" or "model 'x' not found, try pulling it
// first", the last first (the specific part), with quoted names left out.
//
// From a field (field true) a part is looked up with the suffix and
// prefix rules; from prose a part of several words must be a word of the
// table ("Missing Access", "Too Many Requests"), and only a single token
// (not_in_channel, RATELIMIT) is read by its suffix.
func phraseMeaning(msg string, field bool) (meaning, bool, string) {
	parts := strings.FieldsFunc(dropQuoted(msg), func(r rune) bool {
		return r == ':' || r == ',' || r == ';' || r == '(' || r == ')' || r == '.' || r == '!' || r == '|'
	})
	for i, n := len(parts)-1, 0; i >= 0 && n < maxPhraseParts; i, n = i-1, n+1 {
		p := strings.TrimSpace(parts[i])
		words := len(strings.Fields(p))
		if p == "" || words > maxPhraseWords || isErrno(p) {
			continue
		}
		w := normWord(p)
		if !field && (i != len(parts)-1 && !isCodeToken(p) || isClassName(p)) {
			continue // prose: the message's last part, or an error code's token
		}
		if !field && words > 1 {
			if m, ok := meaningWords[w]; ok {
				return m, m == mNotFound && !bareNotFound[w], p
			}
			continue
		}
		if m, named := meaningLookup(w, field); m != mNone {
			return m, named, p
		}
	}
	return mNone, false, ""
}

// isCodeToken reports whether s is one token in an error code's form:
// snake_case or upper case (not_in_channel, RATELIMIT).
func isCodeToken(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t") {
		return false
	}
	return strings.Contains(s, "_") || strings.ToUpper(s) == s && len(s) > 3
}

// isClassName reports whether s is an exception's class name (APIError,
// RateLimitError): the SDK's word, not the API's.
func isClassName(s string) bool {
	return !strings.Contains(s, " ") && len(s) > 0 && s[0] >= 'A' && s[0] <= 'Z' && (strings.HasSuffix(s, "Error") || strings.HasSuffix(s, "Exception"))
}

// isErrno reports whether s is an errno's name (ENOTFOUND, EAI_AGAIN):
// the network's word, which the network recognisers read.
func isErrno(s string) bool {
	if len(s) < 4 || s[0] != 'E' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// dropQuoted removes the quoted names of a message ('codellama:7b',
// "x", `y`): what a message names is not what it says.
func dropQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' || c == '"' || c == '`' {
			if j := strings.IndexByte(s[i+1:], c); j >= 0 && j <= 80 && (i == 0 || s[i-1] == ' ') {
				i += j + 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// apiRecord is what one error object says.
type apiRecord struct {
	words   []fieldAt // the error words, the most specific first
	phrases []fieldAt // short human messages
	message string    // the message, for the reason
	status  int       // an HTTP status the body states
	numCode int       // a numeric error code beside a message (Discord's)
	wait    time.Duration
	hasWait bool
	failed  bool // ok: false, success: false
	at      int  // offset in the text, for the evidence
}

type fieldAt struct {
	s  string
	at int
	// category: a "type" field's word (OpenAI's invalid_request_error,
	// GraphQL's FORBIDDEN), which says less than a code does
	category bool
}

// maxRecordFields bounds the words and phrases kept per record.
const maxRecordFields = 12

func (r *apiRecord) word(v *jv, off int) {
	if s := v.text(); s != "" && !isErrno(s) && len(r.words) < maxRecordFields {
		if strings.Contains(strings.TrimSpace(s), " ") {
			r.phrase(v, off)
			return
		}
		r.words = append(r.words, fieldAt{s: s, at: posOf(v, off)})
	}
}

func (r *apiRecord) phrase(v *jv, off int) {
	if s := v.text(); s != "" && len(r.phrases) < maxRecordFields {
		r.phrases = append(r.phrases, fieldAt{s: s, at: posOf(v, off)})
		if r.message == "" {
			r.message = s
		}
	}
}

func posOf(v *jv, off int) int {
	if off < 0 {
		return -1
	}
	return off + v.at
}

func (r *apiRecord) waitFrom(v *jv) {
	if f, ok := v.number(); ok && f >= 0 && f < float64(maxWaitSeconds) && !r.hasWait {
		r.wait, r.hasWait = time.Duration(f*float64(time.Second)).Truncate(time.Millisecond), true
	}
}

// isErrorObject reports whether an object is an error's: it has an error
// field, says it failed, or holds a code beside a message.
func isErrorObject(o *jv) bool {
	for _, k := range []string{"error", "errors", "__type", "error_code", "errorType", "errorCode", "error_description"} {
		if o.get(k) != nil {
			return true
		}
	}
	if o.get("ok").isFalse() || o.get("success").isFalse() || o.get("type").text() == "error" || herokuError(o) {
		return true
	}
	hasMsg := o.get("message") != nil || o.get("detail") != nil || o.get("description") != nil
	return o.get("code") != nil && hasMsg || o.get("title") != nil && (o.get("status") != nil || o.get("type") != nil) || o.get("retry_after") != nil && hasMsg
}

// herokuError reports whether o is in Heroku's Platform API error shape:
// an id word beside a message, and at most a url besides ({"id":
// "suspended", "message": "..."}).
func herokuError(o *jv) bool {
	id := o.get("id").text()
	if id == "" || strings.ContainsAny(id, " -") || o.get("message").text() == "" || len(o.keys) > 3 {
		return false
	}
	return len(o.keys) == 2 || o.get("url") != nil
}

// fill reads one error object's fields into r; nested is true for the
// object under "error" or an entry of "errors".
func (r *apiRecord) fill(o *jv, off int, nested bool, depth int) {
	if o == nil || o.kind != 'o' || depth > 3 {
		return
	}
	if e := o.get("error"); e != nil {
		if e.kind == 'o' {
			r.fill(e, off, true, depth+1)
		} else {
			r.word(e, off)
		}
	}
	for _, k := range []string{"code", "__type", "errorType", "errorCode", "reason", "status"} {
		v := o.get(k)
		if v == nil {
			continue
		}
		if n, ok := v.number(); ok && v.kind == 'n' {
			switch {
			case n >= 400 && n <= 599 && n == math.Trunc(n):
				if r.status == 0 {
					r.status = int(n)
				}
			case k == "code" && !nested && n >= 10000 && n < 1e6:
				r.numCode = int(n)
			}
			continue
		}
		r.word(v, off)
	}
	if herokuError(o) {
		r.word(o.get("id"), off)
	}
	if t := o.get("type").text(); t != "" && t != "error" && t != "about:blank" {
		n := len(r.words)
		r.word(o.get("type"), off)
		if len(r.words) > n {
			r.words[n].category = true
		}
	}
	for _, k := range []string{"description", "message", "title", "detail", "error_description", "msg"} {
		if v := o.get(k); v != nil {
			r.phrase(v, off)
		}
	}
	if n, ok := o.get("error_code").number(); ok && n >= 400 && n <= 599 && r.status == 0 {
		r.status = int(n)
	}
	if d := o.get("data"); d != nil {
		if n, ok := d.get("status").number(); ok && n >= 400 && n <= 599 && r.status == 0 {
			r.status = int(n)
		}
	}
	for _, k := range []string{"retry_after", "retryAfter"} {
		if v := o.get(k); v != nil {
			r.waitFrom(v)
			if discordMillis(o, v) {
				r.wait /= 1000
			}
		}
	}
	if p := o.get("parameters"); p != nil {
		r.waitFrom(p.get("retry_after"))
	}
	if o.get("ok").isFalse() || o.get("success").isFalse() {
		r.failed = true
	}
	if es := o.get("errors"); es != nil && es.kind == 'a' {
		for i, e := range es.vals {
			if i == 4 {
				break
			}
			r.fill(e, off, true, depth+1)
		}
	}
}

// discordMillis reports whether a retry_after counts milliseconds: Discord's
// API before v8 sent a whole number of milliseconds beside its "global"
// flag ({"global": false, "retry_after": 6457}); later versions send
// seconds with a fraction. A whole number of a thousand or more beside
// "global" is read as milliseconds.
func discordMillis(o, v *jv) bool {
	g := o.get("global")
	n, ok := v.number()
	return g != nil && g.kind == 'b' && ok && n >= 1000 && n == math.Trunc(n)
}

// apiRecords returns the error records of text's structured values.
func apiRecords(text string) []apiRecord {
	if !strings.Contains(text[max(0, len(text)-maxAPITail):], "{") {
		return nil
	}
	var out []apiRecord
	for _, pv := range readValues(text) {
		walkErrorObjects(pv.v, 0, func(o *jv) {
			if len(out) >= maxAPIRecords || kubeStatus(o) {
				return // a Kubernetes Status is the standards layer's (std_kube.go)
			}
			r := apiRecord{at: pv.at}
			off := pv.base
			r.fill(o, off, false, 0)
			if off >= 0 {
				r.at = off + o.at
			}
			if len(r.words) > 0 || len(r.phrases) > 0 || r.status != 0 || r.hasWait {
				out = append(out, r)
			}
		})
	}
	return out
}

// kubeStatus reports whether o is a Kubernetes API Status object
// ("kind": "Status" beside an apiVersion), whose reason the Kubernetes
// table reads.
func kubeStatus(o *jv) bool {
	return o.get("kind").text() == "Status" && o.get("apiVersion").text() != ""
}

// walkErrorObjects calls f for the outermost error objects under v.
func walkErrorObjects(v *jv, depth int, f func(*jv)) {
	if v == nil || depth > maxAPIDepth {
		return
	}
	if v.kind == 'o' && isErrorObject(v) {
		f(v)
		return
	}
	if v.kind == 'o' || v.kind == 'a' {
		for _, c := range v.vals {
			walkErrorObjects(c, depth+1, f)
		}
	}
}

// discordMeaning reads Discord's numeric JSON codes by family (10xxx an
// unknown thing, 20xxx an action refused to this kind of user, 30xxx a
// maximum reached, 40001 unauthorized, 40005 too large, 50001 and 50013
// access and permissions, 50035 and the other 50xxx an invalid request,
// 60003 two-factor required, 130000 overloaded).
func discordMeaning(code int) meaning {
	switch {
	case code == 40001 || code == 40002 || code == 50014 || code == 60003:
		return mAuth
	case code == 50001 || code == 50013 || code >= 20000 && code < 30000:
		return mPermission
	case code == 40005:
		return mTooLarge
	case code == 130000:
		return mTransient
	case code >= 10000 && code < 20000:
		return mNotFound
	case code >= 30000 && code < 40000:
		return mQuota
	case code >= 50000 && code < 60000:
		return mInvalid
	}
	return mNone
}

// The over-a-stated-limit and zero-quota readers of section 3.
var (
	// reOverLimit: a request over a stated limit ("Request too large",
	// "exceeds the maximum", "maximum context length", "too many files").
	reOverLimit = LazyRE(`(?i)\b(?:request|payload|body|input|prompt|file|upload|message|entity|content|attachment|image)s?\b[^\n]{0,40}?\btoo (?:large|long|big)\b|\bexceeds? (?:the )?(?:maximum|max)\b|\bmaximum (?:context|content|input|request|payload|upload|file) (?:length|size)\b|\bcontext length\b|\btoo many (?:files|attachments|images|tokens)\b|\b(?:input|output) tokens must be reduced\b`)
	// reRequestedLimit: "Limit 6000, Requested 7591" (either order).
	reRequestedLimit = LazyRE(`(?i)\blimit:?\s*([\d,]{1,12})[^\n]{0,40}?\brequested:?\s*([\d,]{1,12})|\brequested:?\s*([\d,]{1,12})[^\n]{0,40}?\blimit:?\s*([\d,]{1,12})`)
	// reLimitContext: the words of a throttle or a quota, which a request
	// over a limit is not.
	reLimitContext = LazyRE(`(?i)rate.?limit|\b429\b|too many requests|quota|per min|\bTPM\b|\bRPM\b|throttl`)
	// reZeroQuota: a quota whose limit is zero.
	reZeroQuota = LazyRE(`(?i)(?:\blimit:\s*0|\bquota\b[^\n]{0,60}?\b(?:limit|value|of|is)\s*:?\s*0)(?:[\s,;)\]}'"]|$)|\b0 quota\b`)
)

// overStatedLimit reports whether s says the request asks more than a
// limit allows.
func overStatedLimit(s string) bool {
	if reOverLimit.MatchString(s) {
		return true
	}
	if m := reRequestedLimit.FindStringSubmatch(s); m != nil {
		lim, req := m[1], m[2]
		if m[3] != "" {
			req, lim = m[3], m[4]
		}
		l, r := Atoi(strings.ReplaceAll(lim, ",", "")), Atoi(strings.ReplaceAll(req, ",", ""))
		return l >= 0 && r > l
	}
	return false
}

// Section 3's verdicts.
func tooLargeHit(rank int, what string) Hit {
	return Hit{Class: Structural, Code: CodeAPIRequestTooLarge, Rank: rank,
		Reason: "the request is over a stated limit (\"" + Clip(what) + "\"): waiting does not shrink it",
		Remedy: "send less (a shorter prompt or history, fewer or smaller files, a smaller payload) or use a larger limit; resending it unchanged fails the same way, however long the wait"}
}

func zeroQuotaHit(rank int, what string) Hit {
	return Hit{Class: Policy, Code: CodeQuotaExhausted, Rank: rank,
		Reason: "quota exhausted: " + Clip(what) + " (the quota is 0: this plan or key has none, so no reset helps)",
		Remedy: "this plan, key or project has no quota for it: enable billing or a plan that includes it, or use another model, key or project; retrying cannot succeed"}
}

// limitMatchers are section 3's line readers: a request over a stated
// limit inside a throttle's or quota's message is structural, a quota of
// zero is policy; both beat the throttle's words on the line.
var limitMatchers = []Matcher{
	{
		Gates: []string{"oo large", "oo long", "oo big", "xceeds the max", "xceeds max", "aximum context", "ontext length", "oo many files", "oo many tokens", "equested", "EQUESTED", "tokens must be reduced"},
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			if notAFailureLine(line) || !overStatedLimit(line) {
				return Hit{}, false
			}
			if !reLimitContext.MatchString(c.quotaContext(line)) {
				return Hit{}, false
			}
			return tooLargeHit(RankAPICode+1, line), true
		},
	},
	{
		Gates: []string{"imit: 0", "IMIT: 0", "uota", "UOTA"},
		RE:    reZeroQuota,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if notAFailureLine(line) || !reLimitContext.MatchString(c.quotaContext(line)) {
				return Hit{}, false
			}
			return zeroQuotaHit(RankAPICode, m[0]), true
		},
	},
}

// reSDKError: an SDK's exception that carries the API's error word or
// short message: "slacker.Error: invalid_auth", "DiscordAPIError[50001]:
// Missing Access", "An API error occurred: not_in_channel", Ruby's
// "not_in_channel (Slack::Web::Api::Error)", praw's "RATELIMIT: ...".
var reSDKError = LazyRE(`(?:\b[\w.:]*(?:Error|Exception)(?:\[\d+\])?|\b(?:API )?error occurred|\bresponded with(?: an error)?|\bAPI (?:returned )?(?:an )?error):\s+([^\n]{1,160})|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+) \([\w:.]*(?:Error|Exception)\)`)

// sdkMatchers read an API's error word where an SDK's exception prints
// it, through the table of meanings; prose is not read (only a message
// of a few words, or a word of the table's form).
var sdkMatchers = []Matcher{
	{
		Gates: []string{"Error: ", "Exception: ", "]: ", "rror occurred: ", "esponded with", "PI error: ", "PI returned", "Error)", "Exception)"},
		RE:    reSDKError,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if notAFailureLine(line) {
				return Hit{}, false
			}
			msg := m[1] + m[2]
			md, named, what := phraseMeaning(msg, false)
			if md == mNone {
				return Hit{}, false
			}
			h := c.meaningVerdict(apiRecord{}, md, named, what, line, rankGenericPhrase)
			if (md == mRateLimited || md == mQuota) && overStatedLimit(c.quotaContext(line)) {
				h = tooLargeHit(rankGenericPhrase+1, what)
			}
			return h, true
		},
	},
}

// reReasonLabel is an API's message labelled with an HTTP reason phrase,
// as Telegram's descriptions are ("Bad Request: chat not found",
// "Forbidden: bot is not a member of the channel chat"): group 1, the
// message, read as a field is.
var reReasonLabel = LazyRE(`(?:^|[\s"'(\[>])(?:Bad Request|Forbidden|Unauthorized|Not Found|Conflict): ([^\n"'\]]{2,120})`)

// reCodeSuffix is a message followed by its API's numeric code, as
// wrangler prints the Cloudflare API's errors ("Authentication error
// [code: 10000]", "workers.api.error.bucket_not_found [code: 10085]"):
// group 1, the message.
var reCodeSuffix = LazyRE(`(?m)^[ \t]*([^\n\[]{2,120}?) \[code: \d{1,7}\][ \t]*$`)

// reGoStructError is Go's %+v of a response struct with an ok flag and an
// error word ({Ok:false ... Error:invalid_auth}): group 1, the word.
var reGoStructError = LazyRE(`\{Ok:false\b[^\n]{0,200}?\bError:([A-Za-z_]{3,60})\b`)

// reasonLabelMatchers read the message after a reason-phrase label, before
// an API's code, and in a Go struct's dump through the table of meanings.
var reasonLabelMatchers = []Matcher{
	{
		Gates: []string{"[code: "},
		RE:    reCodeSuffix,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			md, named, what := phraseMeaning(m[1], true)
			if md == mNone {
				return Hit{}, false
			}
			return c.meaningVerdict(apiRecord{}, md, named, what, line, rankGenericPhrase), true
		},
	},
	{
		Gates: []string{"{Ok:false"},
		RE:    reGoStructError,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			md, named := meaningOf(normWord(m[1]))
			if md == mNone {
				return Hit{}, false
			}
			return c.meaningVerdict(apiRecord{}, md, named, m[1], line, rankGenericPhrase), true
		},
	},
	{
		Gates: []string{"Bad Request: ", "Forbidden: ", "Unauthorized: ", "Not Found: ", "Conflict: "},
		RE:    reReasonLabel,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if notAFailureLine(line) {
				return Hit{}, false
			}
			md, named, what := phraseMeaning(m[1], true)
			if md == mNone {
				return Hit{}, false // the reason phrase alone is the status readers'
			}
			return c.meaningVerdict(apiRecord{}, md, named, what, line, rankGenericPhrase), true
		},
	},
}

// apiHits are the verdicts of the structured error bodies in c.Text, each
// on the text's line where its object or word is.
func (c *ScanCtx) apiHits() []Hit {
	var hits []Hit
	for _, r := range apiRecords(c.Text) {
		if h, ok := c.recordHit(r); ok {
			hits = append(hits, h)
		}
	}
	off := max(0, len(c.Text)-maxAPITail)
	if h, ok := c.sdkClassHit(off); ok {
		hits = append(hits, h)
	} else if h, ok := c.inlineClassHit(off); ok {
		hits = append(hits, h)
	}
	for _, read := range []func(string) (string, int){xmlCode, codeLine} {
		if code, at := read(c.Text[off:]); code != "" {
			at += off
			if h, ok := c.meaningHit(apiRecord{at: at}, code, at, false); ok {
				hits = append(hits, h)
			}
		}
	}
	return hits
}

// recordHit decides one record: its first word the table knows, else its
// short messages, else a numeric code's family, else a wait or a status.
func (c *ScanCtx) recordHit(r apiRecord) (Hit, bool) {
	for _, w := range r.words {
		if w.category && catchAllWords[normWord(w.s)] {
			// a catch-all type (OpenAI-compatible servers' api_error on
			// every failure): a message that names a meaning says more
			if h, ok := c.phraseHit(r, mTransient); ok {
				return h, true
			}
		}
		if h, ok := c.meaningHit(r, w.s, w.at, w.category); ok {
			return h, true
		}
	}
	for _, p := range r.phrases {
		if m, named, what := phraseMeaning(p.s, true); m != mNone {
			return c.verdictOf(r, m, named, what, p.at, meaningRank(m)), true
		}
	}
	if m := discordMeaning(r.numCode); m != mNone && r.message != "" {
		return c.verdictOf(r, m, false, fmt.Sprintf("%d: %s", r.numCode, r.message), r.at, meaningRank(m)), true
	}
	if r.hasWait && (r.failed || r.status == 429 || r.message != "") {
		return c.verdictOf(r, mRateLimited, false, "retry_after "+humanWait(r.wait), r.at, RankTool), true
	}
	if r.status != 0 && c.status == 0 && (r.failed || r.message != "") {
		return c.bodyStatusHit(r)
	}
	return Hit{}, false
}

// catchAllWords are the type words some servers put on every error
// (Ollama's and other OpenAI-compatible servers' api_error): the kind of
// the body, not of the failure.
var catchAllWords = map[string]bool{"apierror": true}

// phraseHit is the verdict of r's first short message the table reads,
// unless its meaning is except.
func (c *ScanCtx) phraseHit(r apiRecord, except meaning) (Hit, bool) {
	for _, p := range r.phrases {
		if m, named, what := phraseMeaning(p.s, true); m != mNone && m != except {
			return c.verdictOf(r, m, named, what, p.at, meaningRank(m)), true
		}
	}
	return Hit{}, false
}

// bodyStatusHit is the verdict of the HTTP status an error object states
// ({"error": {"code": 502, "message": ...}}) when its words say nothing
// the table knows: the status of the answer the log quotes, ranked as a
// status a tool reports; a 429 goes to the rate-limit verdicts, which read
// a wait or a period on its line.
func (c *ScanCtx) bodyStatusHit(r apiRecord) (Hit, bool) {
	line, pos := c.lineAt(r.at, r.at)
	var h Hit
	if r.status == 429 {
		h = rateHit(c, line, fmt.Sprintf("HTTP 429 %s", r.message), rankGenericStatus)
	} else {
		var ok bool
		if h, ok = StatusHit(c, r.status, rankGenericStatus); !ok {
			return Hit{}, false
		}
		if r.message != "" {
			h.Reason += " (\"" + Clip(r.message) + "\")"
		}
	}
	h.line, h.pos = EvidenceLineAt(line, 0), pos
	return h, true
}

func (c *ScanCtx) meaningHit(r apiRecord, word string, at int, category bool) (Hit, bool) {
	m, named := meaningOf(normWord(word))
	if m == mNone {
		return Hit{}, false
	}
	rank := meaningRank(m)
	if category {
		rank = min(rank, RankRefusal-1)
	}
	return c.verdictOf(r, m, named, word, at, rank), true
}

// meaningRank is the rank of a meaning read from an error body: a quota
// and a request over a limit beat a throttle's words and a 429 (as the
// quota readers do); a throttle and an outage
// tie the model APIs' named types, and so do credentials, permission and
// a named thing missing (they decide over a bare 400); invalid and exists
// only name the status's kind (the status or a tool's phrase says more).
func meaningRank(m meaning) int {
	switch m {
	case mQuota, mTooLarge:
		return RankAPICode
	case mRateLimited, mTransient:
		return RankTool
	case mAuth, mPermission, mNotFound:
		return RankTool
	}
	return RankTransport - 1
}

// verdictOf turns a meaning into a hit, with section 3 first: a throttle
// or quota whose message states a request over its limit is structural; a
// quota of zero is policy.
func (c *ScanCtx) verdictOf(r apiRecord, m meaning, named bool, what string, at, rank int) Hit {
	line, pos := c.lineAt(at, r.at)
	ctx := r.message + "\n" + c.quotaContext(line)
	what = strings.TrimSpace(what)
	if r.message != "" && !strings.EqualFold(r.message, what) {
		what += ": " + r.message
	}
	if (m == mInvalid || m == mExists) && c.status != 0 && StatusVerdict(c.status, c.LookupMethod(), ToolHTTP).Class != Structural {
		rank = RankTool // over a status of another kind (409 Conflict, a 2xx), the word decides
	}
	var h Hit
	switch {
	case (m == mRateLimited || m == mQuota || m == mTransient) && overStatedLimit(ctx):
		h = tooLargeHit(rank+1, what)
	case (m == mRateLimited || m == mQuota) && reZeroQuota.MatchString(ctx):
		h = zeroQuotaHit(rank+1, what)
	default:
		h = c.meaningVerdict(r, m, named, what, line, rank)
	}
	if c.status != 0 && m != mRateLimited && m != mQuota && m != mTooLarge && h.Class == StatusVerdict(c.status, c.LookupMethod(), ToolHTTP).Class {
		// the body agrees with the answer's status: the status is told
		// (its code and reason), the body only quoted as evidence
		h.Rank = min(h.Rank, RankTransport-1)
	}
	h.line, h.pos = EvidenceLineAt(line, 0), pos
	return h
}

func (c *ScanCtx) meaningVerdict(r apiRecord, m meaning, named bool, what, line string, rank int) Hit {
	reason := func(s string) string { return s + " (\"" + Clip(what) + "\")" }
	switch m {
	case mAuth:
		return Hit{Class: Policy, Code: CodeAuthRejected, Rank: rank, Reason: reason("the API refused the credentials"), Remedy: remedyAuthRejected}
	case mPermission:
		return Hit{Class: Policy, Code: CodePermissionDenied, Rank: rank, Reason: reason("the credentials lack the permission"), Remedy: remedyPermission}
	case mNotFound:
		method := c.LookupMethod()
		if named && (method == "" || !IsLookup(method)) || !named && !IsLookup(method) {
			return Hit{Class: Structural, Code: CodeNotFound, Rank: rank, Reason: reason("the request names something that does not exist"),
				Remedy: "fix the name or id the request sends (a channel, chat, user, deployment or model), or give the credentials access to it; resending it unchanged fails the same way"}
		}
		return Hit{Class: Absent, Code: CodeNotFound, Rank: min(rank, RankStatus-1), Reason: reason("not found"), Remedy: remedyNotFound}
	case mInvalid:
		return Hit{Class: Structural, Code: CodeValidation, Rank: rank, Reason: reason("the API rejected the request"), Remedy: remedyValidation}
	case mExists:
		return Hit{Class: Structural, Code: CodeAlreadyExists, Rank: rank, Reason: reason("it already exists"), Remedy: remedyExists}
	case mTransient:
		h := Hit{Class: Transient, Code: CodeServiceUnavailable, Rank: rank, Reason: reason("the service failed on its side"), Remedy: remedyServer}
		if r.hasWait && r.wait <= c.waitLimit() {
			h.RetryAfter = r.wait
		}
		return DuringRetry(line, h)
	case mRateLimited:
		return DuringRetry(line, c.apiRateHit(r, line, what, rank))
	case mQuota:
		return quotaVerdict(c, line, what, rank)
	case mTooLarge:
		return tooLargeHit(rank, what)
	}
	return Hit{}
}

// apiRateHit hands a rate limit to the rate-limit verdicts: a wait the
// body states (retry_after, parameters.retry_after) is judged as a wait
// stated in text is (waitHit past the run's max elapsed); without one,
// rateHit reads the line.
func (c *ScanCtx) apiRateHit(r apiRecord, line, what string, rank int) Hit {
	if !r.hasWait {
		return rateHit(c, line, what, rank)
	}
	if r.wait > c.waitLimit() {
		h := waitHit(c, line, "in "+humanWait(r.wait))
		h.Rank = rank
		return h
	}
	return Hit{Class: Transient, Code: CodeRateLimited, Rank: rank, RetryAfter: r.wait,
		Reason: "rate limit exceeded: " + Clip(what) + " (retry after " + humanWait(r.wait) + ")", Remedy: RemedyRateLimit}
}

// lineAt returns the line of c.Text holding offset at (else fallback)
// and its start; c.LineEnd is set to its end, so that the quota readers
// read the lines after it.
func (c *ScanCtx) lineAt(at, fallback int) (string, int) {
	if at < 0 || at >= len(c.Text) {
		at = fallback
	}
	if at < 0 || at >= len(c.Text) {
		return "", 0
	}
	sp := lineSpan(c.Text, at, at)
	c.LineEnd = sp.end
	return c.Text[sp.start:sp.end], sp.start
}

// reSDKClass is an exception printed with its module path at a line's
// start (telegram.error.BadRequest:, google.api_core.exceptions.NotFound:,
// mastodon.errors.MastodonRatelimitError:): the class, group 1.
var reSDKClass = LazyRE(`(?m)^[ \t]*(?:[a-z_][a-z0-9_]*\.){1,4}([A-Z][A-Za-z0-9]{2,60})(?::|[ \t]*$)`)

// maxSDKClassLines bounds the exception lines the class reader tries.
const maxSDKClassLines = 4

// sdkClassHit reads the class of an exception a client names after the
// HTTP status or the error word it stands for (python-telegram-bot's
// BadRequest and Forbidden, tweepy's and prawcore's, google.api_core's
// PermissionDenied, Mastodon.py's MastodonRatelimitError), the last one
// printed, by the table of meanings without its prefix rules (an
// UnknownHostException is the network's). It ranks below a network
// failure and an explicit status: the class only names the kind when
// nothing stronger does.
func (c *ScanCtx) sdkClassHit(off int) (Hit, bool) {
	ms := reSDKClass.FindAllStringSubmatchIndex(c.Text[off:], -1)
	for i := len(ms) - 1; i >= 0 && i >= len(ms)-maxSDKClassLines; i-- {
		m := ms[i]
		class := c.Text[off+m[2] : off+m[3]]
		w := normWord(class)
		for _, suf := range []string{"error", "exception"} {
			if t, ok := strings.CutSuffix(w, suf); ok && t != "" {
				w = t
				break
			}
		}
		mean, named := meaningLookup(w, false)
		if mean == mNone {
			continue
		}
		return c.verdictOf(apiRecord{at: off + m[2]}, mean, named, class, off+m[2], RankTransport-1), true
	}
	return Hit{}, false
}

// reInlineClass is an SDK's exception class named inside a line, with no
// module path ("Left (APIError (RateLimitError 256 ...))", "raise
// AuthenticationError(...)"): group 1.
var reInlineClass = LazyRE(`\b([A-Z][A-Za-z]{2,40}(?:Error|Exception))\b`)

// reSourceLine is a line of source a traceback quotes (an except or
// catch clause, an import, a raise): the classes it names are not the
// error.
var reSourceLine = LazyRE(`^\s*(?:except\b|catch\b|} catch\b|import\b|from \S+ import\b|raise\b|throw\b|class\b)|\bisinstance\(`)

// inlineClassStems are the stems whose class the runtime, not an API,
// raises (Python's PermissionError is EACCES): not read inline.
var inlineClassStems = map[string]bool{"permission": true}

// inlineClassHit reads the last exception class named inside a line whose
// stem is a word of the table exactly (RateLimitError, AuthenticationError,
// PermissionDeniedError, NotFoundError: the classes the model APIs' SDKs
// raise for 429, 401, 403 and 404). A class of the service's failing
// (TimeoutError, InternalError) or of a malformed request
// (ValidationError) is left to the readers of those kinds: a runtime
// raises them too. It ranks as sdkClassHit does.
func (c *ScanCtx) inlineClassHit(off int) (Hit, bool) {
	ms := reInlineClass.FindAllStringSubmatchIndex(c.Text[off:], maxSDKClassLines*4)
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		class := c.Text[off+m[2] : off+m[3]]
		if end := off + m[3]; end < len(c.Text) && c.Text[end] == '(' || off+m[2] > 0 && c.Text[off+m[2]-1] == '.' {
			continue // source: a constructor (raise X(...)) or a qualified name (except mod.X); sdkClassHit reads a printed one
		}
		if line, _ := c.lineAt(off+m[2], -1); reSourceLine.MatchString(line) {
			continue
		}
		w := normWord(class)
		for _, suf := range []string{"error", "exception"} {
			if t, ok := strings.CutSuffix(w, suf); ok && t != "" {
				w = t
				break
			}
		}
		mean, ok := meaningWords[w]
		if !ok || inlineClassStems[w] || mean == mTransient || mean == mInvalid || mean == mExists {
			continue
		}
		return c.verdictOf(apiRecord{at: off + m[2]}, mean, mean == mNotFound && !bareNotFound[w], class, off+m[2], RankTransport-1), true
	}
	return Hit{}, false
}
