// Package nice lowers the scheduling priority of child processes and of
// this process's threads (Linux; elsewhere it does nothing): the App's
// evaluation work runs below its webhook intake. Every error is ignored,
// as the priority is only a hint.
package nice
