// Package hostinstall holds the tests of host/install.sh, the host action's
// installer, against fake release assets served from 127.0.0.1, and of the
// host action's steps that call it. It has no code of its own.
package hostinstall
