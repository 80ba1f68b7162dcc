{{/* Name of the release's objects: the release name, or release-chart when they differ. */}}
{{- define "videoedge.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "videoedge.operator.name" -}}{{ include "videoedge.fullname" . }}-operator{{- end -}}
{{- define "videoedge.agent.name" -}}{{ include "videoedge.fullname" . }}-node-agent{{- end -}}

{{- define "videoedge.labels" -}}
app.kubernetes.io/name: videoedge
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "videoedge.operator.selector" -}}
app.kubernetes.io/name: videoedge
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "videoedge.agent.selector" -}}
app.kubernetes.io/name: videoedge
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: node-agent
{{- end -}}

{{/* image ref: include "videoedge.image" (list . .Values.operator.image) */}}
{{- define "videoedge.image" -}}
{{- $root := index . 0 -}}
{{- $img := index . 1 -}}
{{- printf "%s%s:%s" $root.Values.image.registry $img.repository (default $root.Chart.AppVersion $root.Values.image.tag) -}}
{{- end -}}

{{- define "videoedge.pullSecrets" -}}
{{- with .Values.image.pullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Whether to create the ValidatingAdmissionPolicy. */}}
{{- define "videoedge.admissionPolicy.enabled" -}}
{{- $v := .Values.admissionPolicy.enabled -}}
{{- if or (eq (toString $v) "true") (and (eq (toString $v) "auto") (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")) -}}
true
{{- end -}}
{{- end -}}
