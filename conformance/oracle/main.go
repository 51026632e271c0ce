// Command oracle reads Kubernetes objects as JSON, one per line, on standard input and writes one
// JSON line per object on standard output, in order: whether upstream's own code accepts the
// object on the path a new object takes, and upstream's messages.
//
//	oracle CRD_DIR < objects.jsonl
//	{"verdict":"accepted"}
//	{"verdict":"rejected","stage":"validator","messages":["..."]}
//
// CRD_DIR holds the pinned CRDs (crds/v3.32.1). Stages: "decode" (case-sensitive JSON decoding),
// "crd-unknown-field" and "crd-validate" (the kube-apiserver's create path for the CRD),
// "clientv3-*" and "validator" (libcalico-go), "operator-*" (tigera-operator), "operator-created
// IPPool (...): ..." (an IPPool the operator creates from an Installation it took). A verdict
// "unsupported" marks an object outside the oracle's reach (an unknown kind, a BGPPeer naming
// BGPFilters).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	apiv3 "github.com/projectcalico/api/pkg/apis/projectcalico/v3"
	cerrors "github.com/projectcalico/calico/libcalico-go/lib/errors"
	operatorv1 "github.com/tigera/operator/api/v1"
	sigsjson "sigs.k8s.io/json"
)

type answer struct {
	Verdict  string   `json:"verdict"`
	Stage    string   `json:"stage,omitempty"`
	Messages []string `json:"messages,omitempty"`
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

var crds map[string]*crdJudge

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle CRD_DIR < objects.jsonl")
		os.Exit(2)
	}
	var err error
	if crds, err = loadCRDs(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: read CRDs:", err)
		os.Exit(1)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if encErr := enc.Encode(judge(line)); encErr != nil {
				fmt.Fprintln(os.Stderr, "oracle: write:", encErr)
				os.Exit(1)
			}
			// One answer per line as soon as it is known, so a caller may feed and read in turns.
			if in.Buffered() == 0 {
				out.Flush()
			}
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: read:", err)
			os.Exit(1)
		}
	}
}

func judge(line []byte) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			a = answer{Verdict: "rejected", Stage: "panic", Messages: []string{fmt.Sprint(p)}}
		}
	}()
	var tm typeMeta
	if err := json.Unmarshal(line, &tm); err != nil {
		return answer{Verdict: "rejected", Stage: "decode", Messages: []string{err.Error()}}
	}
	crd, ok := crds[tm.APIVersion+"/"+tm.Kind]
	if !ok {
		return answer{Verdict: "unsupported", Messages: []string{"no CRD for " + tm.APIVersion + "/" + tm.Kind}}
	}
	var obj map[string]interface{}
	if a, ok := decode(line, &obj); !ok {
		return a
	}
	if stage, msgs := crd.admit(obj); stage != "" {
		return answer{Verdict: "rejected", Stage: stage, Messages: msgs}
	}
	// What is stored (pruned and defaulted) is what upstream's Go code reads.
	stored, err := json.Marshal(obj)
	if err != nil {
		return answer{Verdict: "rejected", Stage: "decode", Messages: []string{err.Error()}}
	}
	return judgeStored(tm, stored)
}

func judgeStored(tm typeMeta, line []byte) answer {
	switch tm.APIVersion + "/" + tm.Kind {
	case "projectcalico.org/v3/IPPool":
		obj := &apiv3.IPPool{}
		if a, ok := decode(line, obj); !ok {
			return a
		}
		return verdict(createIPPool(obj))
	case "projectcalico.org/v3/BGPPeer":
		obj := &apiv3.BGPPeer{}
		if a, ok := decode(line, obj); !ok {
			return a
		}
		if len(obj.Spec.Filters) > 0 {
			return answer{Verdict: "unsupported", Messages: []string{"BGPFilters are looked up in the datastore"}}
		}
		return verdict(createBGPPeer(obj))
	case "projectcalico.org/v3/BGPConfiguration":
		obj := &apiv3.BGPConfiguration{}
		if a, ok := decode(line, obj); !ok {
			return a
		}
		return verdict(createBGPConfiguration(obj))
	case "projectcalico.org/v3/FelixConfiguration":
		obj := &apiv3.FelixConfiguration{}
		if a, ok := decode(line, obj); !ok {
			return a
		}
		return verdict(createFelixConfiguration(obj))
	case "operator.tigera.io/v1/Installation":
		obj := &operatorv1.Installation{}
		if a, ok := decode(line, obj); !ok {
			return a
		}
		return judgeInstallation(obj)
	}
	return answer{Verdict: "unsupported", Messages: []string{"kind " + tm.APIVersion + "/" + tm.Kind}}
}

// decode is the API server's decoding: case-sensitive, integers kept, duplicate fields refused.
// Fields the Go types do not know are ignored here: the CRD stage has already refused fields the
// v3.32.1 schema does not know, and the Go code cannot check fields its release does not have.
func decode(line []byte, into any) (answer, bool) {
	strict, err := sigsjson.UnmarshalStrict(line, into, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return answer{Verdict: "rejected", Stage: "decode", Messages: []string{err.Error()}}, false
	}
	if len(strict) > 0 {
		msgs := make([]string, 0, len(strict))
		for _, e := range strict {
			msgs = append(msgs, e.Error())
		}
		return answer{Verdict: "rejected", Stage: "decode", Messages: msgs}, false
	}
	return answer{}, true
}

func verdict(stage string, err error) answer {
	if err == nil {
		return answer{Verdict: "accepted"}
	}
	return answer{Verdict: "rejected", Stage: stage, Messages: messages(err)}
}

// messages splits libcalico-go's validation error into one message per field, as upstream words
// them; any other error is one message.
func messages(err error) []string {
	var v cerrors.ErrorValidation
	if errors.As(err, &v) && len(v.ErroredFields) > 0 {
		out := make([]string, 0, len(v.ErroredFields))
		for _, f := range v.ErroredFields {
			out = append(out, fmt.Sprintf("%s: %s", f.Name, f.Reason))
		}
		return out
	}
	return []string{err.Error()}
}
