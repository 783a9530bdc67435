package gitpush

import "strings"

// pushArgs is what retrywise needs to know of the user's git push arguments;
// they are passed to git unchanged.
type pushArgs struct {
	// repo is the repository argument (a remote's name or a URL); "" when git chooses it.
	repo string
	// refspecs are the arguments after repo.
	refspecs []string
}

// valueOptions are git push's long options whose value may be the next argument.
var valueOptions = map[string]bool{"--push-option": true, "--repo": true, "--receive-pack": true, "--exec": true}

// parseArgs finds the repository and refspecs among git push's arguments.
func parseArgs(args []string) pushArgs {
	var p pushArgs
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			if !valueOptions[name] {
				continue
			}
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
			if name == "--repo" {
				p.repo = val
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// a cluster of short options; -o takes a value, attached or next
			if j := strings.IndexByte(a, 'o'); j > 0 && j == len(a)-1 && i+1 < len(args) {
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) > 0 {
		p.repo, p.refspecs = rest[0], rest[1:]
	}
	return p
}
