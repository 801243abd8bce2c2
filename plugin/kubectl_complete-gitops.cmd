@echo off
rem Completion for "kubectl gitops ..." on Windows (kubectl 1.26 and later): kubectl finds
rem kubectl_complete-gitops on PATH (PATHEXT finds this .cmd), runs it with the words typed after
rem "kubectl gitops" (the last one is the word being completed) and reads candidates and a last
rem colon-and-directive line, as the plugin's hidden __complete command prints them. The plugin is the
rem kubectl-gitops.exe beside this file (where krew installs both), else the one on PATH.
setlocal
set "KG_EXE=%~dp0kubectl-gitops.exe"
if not exist "%KG_EXE%" set "KG_EXE=kubectl-gitops.exe"
"%KG_EXE%" __complete %*
exit /b %ERRORLEVEL%
