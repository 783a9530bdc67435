package jobs

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// This file reads goccy/go-yaml's AST: positions, anchors and aliases,
// mappings (with << merge keys) and scalars as the text that was written.

// yamlError is the interface of goccy/go-yaml's errors that have a token.
type yamlError interface {
	error
	GetToken() *token.Token
	GetMessage() string
}

// parseYAML parses src into its documents' bodies, or returns the syntax
// error, or the limit the tokens cross, as an *Error. The tokens are
// checked against MaxDepth and MaxMappingKeys before they are parsed.
func parseYAML(path string, src []byte) (bodies []ast.Node, perr *Error) {
	tks := lexer.Tokenize(string(src))
	if e := scanTokens(path, tks); e != nil {
		return nil, e
	}
	defer func() {
		// the parser is another project's: a panic on some input is a
		// syntax error of that input, not a crash of the command
		if r := recover(); r != nil {
			bodies, perr = nil, &Error{Path: path, Pos: Pos{1, 1}, Msg: fmt.Sprintf("YAML: the parser failed: %v", r), Fix: "fix the YAML syntax"}
		}
	}()
	f, err := parser.Parse(tks, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		e := &Error{Path: path, Pos: Pos{1, 1}, Msg: "YAML: " + err.Error(), Fix: "fix the YAML syntax"}
		var ye yamlError
		if errors.As(err, &ye) {
			e.Msg = "YAML: " + ye.GetMessage()
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				e.Pos = Pos{tk.Position.Line, tk.Position.Column}
			}
		}
		return nil, e
	}
	for _, d := range f.Docs {
		if d.Body != nil {
			bodies = append(bodies, d.Body)
		}
	}
	return bodies, nil
}

// anchors collects the anchors defined in a document by name.
type anchors map[string]ast.Node

// Visit records an anchor node; it walks the whole tree.
func (a anchors) Visit(n ast.Node) ast.Visitor {
	if an, ok := n.(*ast.AnchorNode); ok && an.Name != nil {
		a[an.Name.GetToken().Value] = an.Value
	}
	return a
}

// tokenPos is the position of n's token.
func tokenPos(n ast.Node) Pos {
	if n == nil {
		return Pos{1, 1}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{1, 1}
	}
	return Pos{tk.Position.Line, tk.Position.Column}
}

// nodePos is where n is written: a block mapping at its first key,
// anything else at its token (a literal at its indicator, an anchor at its &).
func nodePos(n ast.Node) Pos {
	switch n := n.(type) {
	case *ast.MappingNode:
		if !n.IsFlowStyle && len(n.Values) > 0 {
			return nodePos(n.Values[0])
		}
	case *ast.MappingValueNode:
		return tokenPos(n.Key)
	}
	return tokenPos(n)
}

// resolve unwraps tags and anchors and follows aliases, counting the
// nodes each alias stands for against MaxAliasNodes; nil past it.
func (l *loader) resolve(n ast.Node) ast.Node {
	for range 64 {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		case *ast.AliasNode:
			if v.Value == nil {
				return nil
			}
			target, ok := l.anchors[v.Value.GetToken().Value]
			if !ok || !l.expand(v, target) {
				return nil
			}
			n = target
		default:
			return n
		}
	}
	return nil
}

// expand counts a use of alias a for target: false, and the file's one
// error, once the nodes aliases stand for pass MaxAliasNodes.
func (l *loader) expand(a *ast.AliasNode, target ast.Node) bool {
	if l.fatal != nil {
		return false
	}
	size, ok := l.sizes[target]
	if !ok {
		c := &nodeCounter{}
		ast.Walk(c, target)
		size = c.n
		l.sizes[target] = size
	}
	return l.countAliased(size, tokenPos(a))
}

// countAliased adds n nodes that aliases stand for, at p: false, and the
// file's one error, past MaxAliasNodes. The entries a merge key copies
// count too: a chain of mappings each merging the one before copies the
// square of its length.
func (l *loader) countAliased(n int, p Pos) bool {
	l.aliasNodes += n
	if l.aliasNodes > MaxAliasNodes && l.fatal == nil {
		l.fatal = &Error{Path: l.path, Pos: p, Msg: fmt.Sprintf("aliases stand for more than the limit of %d nodes (an alias counts the nodes of its anchor at every use, a merge key the keys it copies)", MaxAliasNodes),
			Fix: "write the values out, or alias smaller anchors; " + limitFix}
	}
	return l.fatal == nil
}

// nodeCounter counts the nodes of a tree.
type nodeCounter struct{ n int }

// Visit counts n.
func (c *nodeCounter) Visit(ast.Node) ast.Visitor {
	c.n++
	return c
}

// halted reports whether the loader stops: a limit was crossed or its
// context is done. What it reads after is discarded.
func (l *loader) halted() bool {
	if l.fatal == nil && l.ctx.Err() != nil {
		l.fatal = &Error{Path: l.path, Pos: Pos{1, 1}, Msg: errStopped.Error()}
	}
	return l.fatal != nil
}

// entry is one key of a mapping.
type entry struct {
	// key is the key's text.
	key string
	// keyPos is where the key is written.
	keyPos Pos
	// val is the value, resolved; nil for an unknown alias.
	val ast.Node
	// valPos is where the value is written.
	valPos Pos
}

// what names a YAML node's type for messages.
func what(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode, nil:
		return "no value"
	case *ast.BoolNode:
		return "a bool"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	}
	return "a string"
}

// isNull reports whether n is YAML null.
func isNull(n ast.Node) bool {
	_, ok := n.(*ast.NullNode)
	return ok || n == nil
}

// entryOf makes the entry of one mapping value.
func (l *loader) entryOf(mv *ast.MappingValueNode) (entry, bool) {
	k := l.resolve(mv.Key)
	sc, ok := l.scalar(k)
	e := entry{keyPos: nodePos(mv.Key), val: l.resolve(mv.Value), valPos: nodePos(mv.Value)}
	if !ok || sc.null {
		l.errorf(e.keyPos, "write a plain name as the key", "a key must be a name, not %s", what(k))
		return e, false
	}
	e.key = sc.text
	if e.val == nil {
		e.val = &ast.NullNode{}
	}
	if tk := e.val.GetToken(); isNull(e.val) && (tk == nil || tk.Type == token.ImplicitNullType) {
		e.valPos = e.keyPos // nothing is written: point at the key
	}
	return e, true
}

// mapping returns n's entries in file order, the entries of << merge keys
// in their place and overridden by the mapping's own keys; null is an
// empty mapping. where names n for messages; it reports duplicate keys and
// a value that is not a mapping (then ok is false).
func (l *loader) mapping(n ast.Node, pos Pos, where string) (entries []entry, ok bool) {
	if isNull(n) {
		return nil, true
	}
	if l.halted() {
		return nil, false
	}
	mn, isMap := n.(ast.MapNode)
	if !isMap {
		l.errorf(pos, "write "+where+" as a mapping of key: value", "%s: want a mapping, not %s", where, what(n))
		return nil, false
	}
	type item struct {
		mv    *ast.MappingValueNode
		e     entry
		merge bool
	}
	var own []item
	if m, ok := mn.(*ast.MappingNode); ok {
		own = make([]item, 0, len(m.Values))
	}
	seen := make(map[string]Pos, cap(own))
	for it := mn.MapRange(); it.Next(); {
		mv := it.KeyValue()
		if mv.Key != nil && mv.Key.IsMergeKey() {
			own = append(own, item{mv: mv, merge: true})
			continue
		}
		e, ok := l.entryOf(mv)
		if !ok {
			continue
		}
		if at, dup := seen[e.key]; dup {
			l.errorf(e.keyPos, "remove one of them", "%s: key %q is already set at %s", where, e.key, at)
			continue
		}
		seen[e.key] = e.keyPos
		own = append(own, item{mv: mv, e: e})
	}
	merged := map[string]bool{}
	l.expanding[n] = true
	defer delete(l.expanding, n)
	if len(own) > 0 {
		entries = make([]entry, 0, len(own))
	}
	for _, it := range own {
		if !it.merge {
			entries = append(entries, it.e)
			continue
		}
		for _, m := range l.mergeSources(it.mv) {
			if l.expanding[m] {
				l.errorf(tokenPos(it.mv.Key), "merge another mapping, or write the keys here", "%s: the merge key << merges a mapping that contains it (a cycle of aliases)", where)
				continue
			}
			sub, _ := l.mapping(m, nodePos(m), where)
			if !l.countAliased(len(sub), tokenPos(it.mv.Key)) {
				return nil, false
			}
			for _, e := range sub {
				if _, mine := seen[e.key]; mine || merged[e.key] {
					continue
				}
				merged[e.key] = true
				entries = append(entries, e)
			}
		}
	}
	return entries, true
}

// mergeSources are the mappings a << key merges: one, or a list of them.
func (l *loader) mergeSources(mv *ast.MappingValueNode) []ast.Node {
	v := l.resolve(mv.Value)
	if seq, ok := v.(*ast.SequenceNode); ok {
		var out []ast.Node
		for _, item := range seq.Values {
			out = append(out, l.resolve(item))
		}
		return out
	}
	return []ast.Node{v}
}

// scalar is a YAML scalar as written.
type scalar struct {
	// text is the value's text: a string's value, a number as written,
	// a bool as true or false.
	text string
	// pos is where the value is written.
	pos Pos
	// null, str, boolean and number say what YAML made of it.
	null, str, boolean, number bool
}

// scalar returns n as a scalar, or false when it is a mapping or a list.
func (l *loader) scalar(n ast.Node) (scalar, bool) {
	s := scalar{pos: nodePos(n)}
	switch v := n.(type) {
	case nil, *ast.NullNode:
		s.null = true
	case *ast.StringNode:
		s.text, s.str = v.Value, true
	case *ast.LiteralNode:
		s.str = true
		if v.Value != nil {
			s.text = v.Value.Value
		}
	case *ast.BoolNode:
		s.text, s.boolean = strconv.FormatBool(v.Value), true
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		s.text, s.number = v.GetToken().Value, true
	case ast.ScalarNode:
		s.text, s.str = fmt.Sprint(v.GetValue()), true
	default:
		return s, false
	}
	return s, true
}

// items returns a list's items resolved with their positions, or false
// when n is not a list.
func (l *loader) items(n ast.Node) ([]ast.Node, []Pos, bool) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok || l.halted() {
		return nil, nil, false
	}
	nodes := make([]ast.Node, len(seq.Values))
	pos := make([]Pos, len(seq.Values))
	for i, v := range seq.Values {
		nodes[i] = l.resolve(v)
		pos[i] = nodePos(v)
		if len(seq.Entries) == len(seq.Values) && seq.Entries[i] != nil && seq.Entries[i].Start != nil {
			pos[i] = tokenPos(seq.Entries[i])
		}
	}
	return nodes, pos, true
}
