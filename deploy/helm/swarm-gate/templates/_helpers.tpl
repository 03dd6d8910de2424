{{/* The chart's name. */}}
{{- define "swarm-gate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the resources' names. */}}
{{- define "swarm-gate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "swarm-gate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "swarm-gate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "swarm-gate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "swarm-gate.labels" -}}
helm.sh/chart: {{ include "swarm-gate.chart" . }}
{{ include "swarm-gate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The Secret holding the private key and the webhook secret. */}}
{{- define "swarm-gate.secretName" -}}
{{- default (include "swarm-gate.fullname" .) .Values.secret.existingSecret }}
{{- end }}

{{/* "true" when /metrics is exposed outside the pod. */}}
{{- define "swarm-gate.metricsExposed" -}}
{{- if or .Values.metrics.enabled .Values.metrics.serviceMonitor.enabled }}true{{ end }}
{{- end }}

{{- define "swarm-gate.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}
