-- Take one request from a bucket (admission.lua), nothing else.
return admit()
