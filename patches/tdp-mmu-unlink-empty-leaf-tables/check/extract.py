import re,sys
src=sys.argv[1]
def block(text, start_pat, end_pat='\n}\n'):
    i=text.index(start_pat); j=text.index(end_pat,i)+len(end_pat); return text[i:j]
h=open(src+'/arch/x86/kvm/mmu/tdp_iter.h').read()
c=open(src+'/arch/x86/kvm/mmu/tdp_iter.c').read()
m=open(src+'/arch/x86/kvm/mmu/tdp_mmu.c').read()
out=[]
out.append(block(h,'struct tdp_iter {','\n};\n'))
if 'struct tdp_iter_child_event {' in h:
    out.append(block(h,'struct tdp_iter_child_event {','\n};\n'))
out.append(c[c.index('static void tdp_iter_refresh_sptep'):])
out.append(block(m,'static inline bool __must_check tdp_mmu_iter_cond_resched'))
if 'tdp_mmu_zap_completed_empty_leaf_pt' in m:
    out.append(block(m,'static bool tdp_mmu_zap_completed_empty_leaf_pt'))
out.append(block(m,'static bool tdp_mmu_zap_leafs'))
open('extracted.c','w').write('\n'.join(out))
