import sys
src=sys.argv[1]
def block(text, start_pat, end_pat='\n}\n'):
    i=text.index(start_pat); j=text.index(end_pat,i)+len(end_pat); return text[i:j]
p=open(src+'/arch/arm64/kvm/hyp/pgtable.c').read()
h=open(src+'/arch/arm64/include/asm/kvm_pgtable.h').read()
m=open(src+'/arch/arm64/kvm/mmu.c').read()
out=[]
out.append(block(h,'enum kvm_pgtable_walk_flags {','\n};\n'))
out.append(block(h,'typedef int (*kvm_pgtable_visitor_fn_t)',';\n'))
out.append(block(h,'struct kvm_pgtable_walker {','\n};\n'))
out.append(block(p,'struct kvm_pgtable_walk_data {','\n};\n'))
for f in ['static u32 kvm_pgtable_idx','static u32 __kvm_pgd_page_idx','static u32 kvm_pgd_page_idx',
          'static bool kvm_pte_table','static kvm_pte_t *kvm_pte_follow','static int kvm_pgtable_visitor_cb']:
    out.append(block(p,f))
out.append('static int __kvm_pgtable_walk(struct kvm_pgtable_walk_data *data,\n\t\t\t      kvm_pte_t *pgtable, u32 level);\n')
out.append(block(p,'static inline int __kvm_pgtable_visit'))
i=p.index('static int __kvm_pgtable_walk(struct kvm_pgtable_walk_data *data,\n\t\t\t      kvm_pte_t *pgtable, u32 level)\n{')
out.append(p[i:p.index('\n}\n',i)+3])
out.append(block(p,'static int _kvm_pgtable_walk'))
out.append(block(p,'int kvm_pgtable_walk('))
out.append(block(m,'static phys_addr_t stage2_range_addr_end'))
out.append(block(m,'static void stage2_mark_range_dirty'))
out.append(block(m,'static int stage2_mark_dirty_walker'))
out.append(block(m,'static void kvm_mmu_mark_dirty_memory_region'))
open('extracted.c','w').write('\n'.join(out))
